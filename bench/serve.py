"""Serve a scim2-server in its own process, so the benchmark measures the client alone.

Prints the base URL on the first line of stdout, then serves until stdin closes.
"""

from __future__ import annotations

import argparse
import json
import sys

from scim2_models import ResourceType
from scim2_models import Schema

from scim_tui.demo import DemoServer
from scim_tui.demo import make_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--schemas", help="a JSON file holding a list of schemas")
    parser.add_argument("--resource-types", help="a JSON file holding a list of resource types")
    args = parser.parse_args()
    schemas = resource_types = None
    if args.schemas:
        with open(args.schemas) as f:
            schemas = [Schema.model_validate(item) for item in json.load(f)]
    if args.resource_types:
        with open(args.resource_types) as f:
            resource_types = [ResourceType.model_validate(item) for item in json.load(f)]
    with DemoServer(make_app(schemas=schemas, resource_types=resource_types)) as server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
