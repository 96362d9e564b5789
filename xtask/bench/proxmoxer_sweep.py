"""The inventory sweep of `cargo xtask bench sweep`, written as a proxmoxer user would.

    proxmoxer_sweep.py SERVER_JSON
    proxmoxer_sweep.py --audit SERVER_JSON...

SERVER_JSON says where the server is (`url`, `ca_file`, `token_id`, `token_secret`: the file
fakepve writes, or the bench's copy pointing at its static server). The reads are those of
`inventory` (cpps_proxmox::inventory::collect): the nodes, the cluster's guests, the HA
resources, the rights on /vms, then every container's config (its privilege), one after the other as a plain
proxmoxer loop does. With `--audit`, the reads of `audit`'s Proxmox VE phase
(cpps_topology::live::sources::PveSource) for each site in turn: the same, plus every online
node's status, then the PVE side of the backup chain (cpps-topology `src/live/pve/chain.rs`
`read_after_lists`): the storages, the vzdump jobs, the pools of enabled pool jobs the guest
list does not show, each guest's or online node's (from the node list already read) vzdump tasks with the logs of its newest tasks for several guests and
of each guest's newest own task that did not end OK, and the rights on each of those nodes.
Prints `seconds: N`, `guests: N`, `containers: N` and `requests: N` (summed over the sites).
"""

import json
import sys
import time
from urllib.parse import urlparse

from proxmoxer import ProxmoxAPI
from proxmoxer.core import ResourceException

# Which logs cpps reads, shared with the capture (this script's folder is on sys.path).
from capture import logged_tasks

# cpps reads a task log in pages of this many lines (`cpps_proxmox::TASK_LOG_PAGE`), at most
# LOG_LINES in all (chain.rs `LOG_LINES`).
LOG_PAGE = 5000
LOG_LINES = 20000


def task_log(pve, task):
    """Reads one task's log page by page, as cpps does; returns the requests made."""
    lines, requests = 0, 0
    while lines < LOG_LINES:
        limit = min(LOG_PAGE, LOG_LINES - lines)
        try:
            page = pve.nodes(task['node']).tasks(task['upid']).log.get(start=lines, limit=limit)
        except ResourceException:
            return requests + 1
        requests += 1
        lines += len(page)
        # proxmoxer hands back `data` alone, without `total`: a short page is the end.
        if len(page) < limit or not page:
            break
    return requests


def node_tasks(pve, node):
    """One node's vzdump tasks and the logs cpps reads; returns the requests made."""
    try:
        tasks = pve.nodes(node).tasks.get(typefilter='vzdump', limit=1000, source='all')
    except ResourceException:
        return 1
    requests = 1
    for task in logged_tasks(tasks):
        requests += task_log(pve, task)
    return requests


def backup_chain(pve, resources, listed_nodes):
    """The PVE side of the backup chain, one read after the other; returns the requests made."""
    # Without the storages or the jobs cpps judges no guest, and reads nothing more.
    try:
        pve.storage.get()
    except ResourceException:
        return 1
    try:
        jobs = pve.cluster.backup.get()
    except ResourceException:
        return 2
    requests = 2
    known = {g['pool'] for g in resources if g.get('pool') and g.get('vmid') is not None}
    for job in jobs:
        pool = job.get('pool')
        if pool and job.get('enabled') not in (0, False, '0') and pool not in known:
            requests += 1
            try:
                pve.pools(pool).get()
                known.add(pool)
            except ResourceException:
                pass
    guests = [g for g in resources if g.get('vmid') is not None and not g.get('template')]
    nodes = {g['node'] for g in guests if g.get('node')}
    nodes.update(n['node'] for n in listed_nodes if n.get('status') == 'online')
    nodes = sorted(nodes)
    for node in nodes:
        requests += node_tasks(pve, node)
    # Whether the task lists are whole: Sys.Audit on every node. cpps asks for all nodes at
    # once (chain.rs `audits_every_node`), so this asks for each too, not up to the first
    # node that lacks it.
    for node in nodes:
        path = '/nodes/{0}'.format(node)
        requests += 1
        try:
            pve.access.permissions.get(path=path)
        except ResourceException:
            pass
    return requests


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
    if audit:
        # cpps reads the chain last, over the same guest list.
        requests += backup_chain(pve, resources, nodes)
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
