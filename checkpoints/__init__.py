"""Shipped bots, as package data: ``boardzoo.checkpoints/<env_id>/`` (card.json, weights.safetensors,
policy.onnx). Load one with ``boardzoo.training.export.load_bot(env_id)``; nothing here is code."""
