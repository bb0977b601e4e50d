"""Serve a scim2-server in its own process, so the benchmark measures the client alone.

Prints the base URL on the first line of stdout, then serves until stdin closes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from scim2_models import ResourceType
from scim2_models import Schema

from scim_tui.demo import DemoServer
from scim_tui.demo import make_app


def delayed(app: Any, seconds: float) -> Any:
    """The application, answering each request `seconds` late (without holding the server busy)."""

    def answer(environ: dict[str, Any], start_response: Any) -> Any:
        time.sleep(seconds)
        return app(environ, start_response)

    return answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--schemas", help="a JSON file holding a list of schemas")
    parser.add_argument("--resource-types", help="a JSON file holding a list of resource types")
    parser.add_argument("--latency-ms", type=float, default=0, help="wait this long before answering each request, like a server across a network")
    args = parser.parse_args()
    schemas = resource_types = None
    if args.schemas:
        with open(args.schemas) as f:
            schemas = [Schema.model_validate(item) for item in json.load(f)]
    if args.resource_types:
        with open(args.resource_types) as f:
            resource_types = [ResourceType.model_validate(item) for item in json.load(f)]
    app = make_app(schemas=schemas, resource_types=resource_types)
    with DemoServer(delayed(app, args.latency_ms / 1000) if args.latency_ms else app) as server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
