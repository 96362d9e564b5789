"""The inventory sweep of `cargo xtask bench sweep`, written as a proxmoxer user would.

    proxmoxer_sweep.py SERVER_JSON
    proxmoxer_sweep.py --audit SERVER_JSON...

SERVER_JSON says where the server is (`url`, `ca_file`, `token_id`, `token_secret`: the file
fakepve writes, or the bench's copy pointing at its static server). The reads are those of
`inventory` (cpps_proxmox::inventory::collect): the nodes, the cluster's guests, the HA
resources, the rights on /vms, then every container's config (its privilege), one after the other as a plain
proxmoxer loop does. With `--audit`, the reads of `audit`'s Proxmox VE phase
(cpps_topology::live::sources::PveSource) for each site in turn: the same, plus every online
node's status. Prints `seconds: N`, `guests: N`, `containers: N` and `requests: N` (summed over
the sites).
"""

import json
import sys
import time
from urllib.parse import urlparse

from proxmoxer import ProxmoxAPI


def sweep(info_path, audit):
    """One site's reads; returns (guests, containers, requests)."""
    with open(info_path) as f:
        info = json.load(f)
    url = urlparse(info['url'])
    user, token_name = info['token_id'].split('!')
    pve = ProxmoxAPI(url.hostname, port=url.port, user=user, token_name=token_name,
                     token_value=info['token_secret'], verify_ssl=info['ca_file'], timeout=30)
    nodes = pve.nodes.get()
    resources = pve.cluster.resources.get(type='vm')
    pve.cluster.ha.resources.get()
    # inventory reads the token's rights on /vms to tell a guest list trimmed by permission.
    pve.access.permissions.get(path='/vms')
    requests = 4
    if audit:
        for node in nodes:
            if node.get('status') == 'online':
                pve.nodes(node['node']).status.get()
                requests += 1
    containers = 0
    for guest in resources:
        if guest['type'] == 'lxc':
            pve.nodes(guest['node']).lxc(guest['vmid']).config.get()
            containers += 1
    return len(resources), containers, requests + containers


def main(args):
    audit = args[:1] == ['--audit']
    paths = args[1:] if audit else args[:1]
    started = time.perf_counter()
    totals = [sweep(path, audit) for path in paths]
    elapsed = time.perf_counter() - started
    print('seconds: {0:.6f}'.format(elapsed))
    print('guests: {0}'.format(sum(t[0] for t in totals)))
    print('containers: {0}'.format(sum(t[1] for t in totals)))
    print('requests: {0}'.format(sum(t[2] for t in totals)))


if __name__ == '__main__':
    main(sys.argv[1:])
