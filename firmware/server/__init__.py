"""What the two servers, the web view and the club hub, serve with.

:mod:`.listen` binds the socket before the server starts, :mod:`.guard` lets
through GET and HEAD to this machine's own names with the security headers,
:mod:`.connections` runs uvicorn with a deadline for each request and a cap on
connections, :mod:`.templating` is the pages' Jinja2 environment, :mod:`.sheets`
makes CSV cells a spreadsheet shows but never runs, and :mod:`.lan` finds the
address phones on the LAN reach this machine at.
"""
