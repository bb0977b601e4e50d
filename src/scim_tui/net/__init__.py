"""The network: from a profile to a connected scim2-client (connect.py), with its authentication
(oauth.py), TLS, proxies from the environment (proxies.py) and header values checked before they
are sent (header_values.py), on httpx2's own HTTP/1.1 held to scim-tui's limits in time and size
(transport.py, and streams.py under it), cut off at once from another thread when need be (cutoff.py).

It may import checker, store and the shared modules beside it (errors, choices, selection); never
the reports, the command line or the app, nor Textual.
"""
