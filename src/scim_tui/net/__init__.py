"""The network: from a profile to a connected scim2-client (connect.py), with its authentication
(oauth.py), TLS, proxies from the environment (proxies.py) and header values checked before they
are sent (header_values.py), on a transport bounded in time and size (transport.py, connections.py).

It may import checker, store and the shared modules beside it (errors, choices, selection); never
the reports, the command line or the app, nor Textual.
"""
