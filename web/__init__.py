"""Play, watch and replay BoardZoo games in the browser: ``boardzoo serve`` (the ``web`` extra).

app.py        the HTTP API and the pages (FastAPI/Starlette; ``create_app``)
sessions.py   live tables, replays and the hub that holds them (no HTTP; what each seat may see)
serve.py      ``serve(host, port)``: uvicorn, the URL printed
static/       the page: plain HTML, JS and CSS, no build step
"""
