"""The inventory sweep of `cargo xtask bench sweep`, written as a proxmoxer user would.

    proxmoxer_sweep.py FAKEPVE_JSON

Reads the cluster's guests, every guest's config and the HA status, the same requests as
cpps-proxmox's side of the benchmark, and prints `seconds: N` and `guests: N`.
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
    resources = pve.cluster.resources.get(type='vm')
    configs = 0
    for guest in resources:
        getattr(pve.nodes(guest['node']), guest['type'])(guest['vmid']).config.get()
        configs += 1
    pve.cluster.ha.status.current.get()
    elapsed = time.perf_counter() - started
    print('seconds: {0:.6f}'.format(elapsed))
    print('guests: {0}'.format(configs))


if __name__ == '__main__':
    main(sys.argv[1])
