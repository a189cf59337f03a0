"""The games app's adapters: what connects the write and read modules to the
outside (DESIGN.md "Layout"). Websocket consumers and their message handlers,
the broadcast of after-commit events and the channel-layer sends under it,
the turn scheduler, URL routing of the sockets, the database thread the
consumers call into, and rate limits. Nothing outside this package imports it
but the project's ASGI routing, the views (rate limits) and the apps' own
adapters; the write modules never do (``tests/test_imports.py``).
"""
