"""The inventory sweep of `cargo xtask bench sweep`, written as a proxmoxer user would.

    proxmoxer_sweep.py SERVER_JSON

SERVER_JSON says where the server is (`url`, `ca_file`, `token_id`, `token_secret`: the file
fakepve writes, or the bench's copy pointing at its static server). The reads are those of
`inventory` (cpps_proxmox::inventory::collect): the nodes, the cluster's guests, the HA
resources, then every container's config (its privilege), one after the other as a plain
proxmoxer loop does. Prints `seconds: N`, `guests: N`, `containers: N` and `requests: N`.
"""

import json
import sys
import time
from urllib.parse import urlparse

from proxmoxer import ProxmoxAPI


def main(info_path):
    with open(info_path) as f:
        info = json.load(f)
    url = urlparse(info['url'])
    user, token_name = info['token_id'].split('!')
    started = time.perf_counter()
    pve = ProxmoxAPI(url.hostname, port=url.port, user=user, token_name=token_name,
                     token_value=info['token_secret'], verify_ssl=info['ca_file'], timeout=30)
    pve.nodes.get()
    resources = pve.cluster.resources.get(type='vm')
    pve.cluster.ha.resources.get()
    containers = 0
    for guest in resources:
        if guest['type'] == 'lxc':
            pve.nodes(guest['node']).lxc(guest['vmid']).config.get()
            containers += 1
    elapsed = time.perf_counter() - started
    print('seconds: {0:.6f}'.format(elapsed))
    print('guests: {0}'.format(len(resources)))
    print('containers: {0}'.format(containers))
    print('requests: {0}'.format(containers + 3))


if __name__ == '__main__':
    main(sys.argv[1])
