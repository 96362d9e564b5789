"""Runs a Pulumi Python program under the SDK's unit-test mocks and writes what it registers.

    python pulumi_mock_run.py PROGRAM_DIR STACK [OUT.json]

No engine and no cloud: `pulumi.runtime.set_mocks` (the SDK's documented test mocks) answers
every resource registration. The stack's config (`Pulumi.<STACK>.yaml`, `config:` with
`project:key` names) is passed as the engine would (`PULUMI_CONFIG`); secure values are not
decrypted: the program sees a placeholder and the key is marked secret. Every registered
resource is written in the shape of `pulumi stack export` (`{"version": 3, "deployment":
{"resources": [{"urn", "type", "custom", "id", "inputs", "outputs", "parent", "provider"}]}}`),
so that cpps reads both with one reader; `manifest.mock` says where it came from.
"""

import json
import os
import runpy
import sys

import yaml


def _config_env(program_dir, stack):
    """PULUMI_CONFIG and PULUMI_CONFIG_SECRET_KEYS for the stack's config file."""
    path = os.path.join(program_dir, f"Pulumi.{stack}.yaml")
    if not os.path.exists(path):
        return {}, []
    with open(path, encoding="utf-8") as f:
        document = yaml.safe_load(f) or {}
    values, secret_keys = {}, []
    for key, value in (document.get("config") or {}).items():
        if isinstance(value, dict) and set(value) == {"secure"}:
            values[key] = "[secret]"
            secret_keys.append(key)
        elif isinstance(value, str):
            values[key] = value
        else:
            values[key] = json.dumps(value)
    return values, secret_keys


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    program_dir, stack = os.path.abspath(argv[1]), argv[2]
    with open(os.path.join(program_dir, "Pulumi.yaml"), encoding="utf-8") as f:
        project = yaml.safe_load(f)["name"]
    values, secret_keys = _config_env(program_dir, stack)
    os.environ["PULUMI_CONFIG"] = json.dumps(values)
    os.environ["PULUMI_CONFIG_SECRET_KEYS"] = json.dumps(secret_keys)

    import pulumi
    from pulumi.runtime.mocks import MockMonitor
    from pulumi.runtime.stack import run_pulumi_func
    from pulumi.runtime.sync_await import _sync_await

    registered = []

    class Mocks(pulumi.runtime.Mocks):
        def new_resource(self, args):
            registered.append(args)
            # The mock's outputs are its inputs: nothing is created.
            return [f"{args.name}-id", dict(args.inputs)]

        def call(self, args):
            return {}

    monitor = MockMonitor(Mocks())
    pulumi.runtime.set_mocks(Mocks(), project=project, stack=stack, preview=False, monitor=monitor)
    monitor.mocks = Mocks()

    sys.path.insert(0, program_dir)
    cwd = os.getcwd()
    os.chdir(program_dir)
    try:
        _sync_await(
            run_pulumi_func(
                lambda: runpy.run_path(os.path.join(program_dir, "__main__.py"), run_name="__main__")
            )
        )
    finally:
        os.chdir(cwd)

    by_urn = monitor.get_registered_resources()
    resources = []
    for args in registered:
        urn = next(
            (u for u in by_urn if u.endswith("::" + args.name) and u.split("::")[2].split("$")[-1] == args.typ),
            None,
        )
        resources.append(
            {
                "urn": urn,
                "type": args.typ,
                "custom": bool(args.custom),
                "id": f"{args.name}-id",
                "inputs": args.inputs,
                "outputs": args.inputs,
                "provider": args.provider or None,
            }
        )
    # The mocks see registrations in the order the program's coroutines happen to run, which
    # varies between runs; sorted by URN the output is the same every time.
    resources.sort(key=lambda r: r["urn"] or "")
    import importlib.metadata as metadata

    document = {
        "version": 3,
        "deployment": {
            "manifest": {
                "mock": "pulumi.runtime.set_mocks",
                "project": project,
                "stack": stack,
                "plugins": [
                    {"name": "proxmoxve", "kind": "resource", "version": metadata.version("pulumi_proxmoxve")}
                ],
                "pulumi": metadata.version("pulumi"),
            },
            "resources": resources,
        },
    }
    text = json.dumps(document, indent=2, sort_keys=False, default=str) + "\n"
    if len(argv) == 4:
        with open(argv[3], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
