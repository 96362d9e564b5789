"""Captures fakepve's answers to the inventory sweep and to `audit`'s Proxmox VE phase, for
`cargo xtask bench sweep`.

    capture.py FAKEPVE_JSON OUT_DIR

Reads, with the API token of FAKEPVE_JSON, every answer the sweep asks for (the version, the
nodes, each online node's status, the cluster's guests, the HA resources and status, the rights
on /vms, every guest's config) and those of the PVE side of the backup chain, which `audit`
reads after them (cpps-topology `src/live/pve/chain.rs` `read`): the storages, the vzdump jobs,
the pools of enabled pool jobs that the guest list does not show, the vzdump tasks of every
guest's node and online node, the logs of each node's newest tasks for several guests and of
each guest's newest own task that did not end OK, and the rights on each of those nodes.

Each answer of status 200 is written as OUT_DIR/<path>/__body, the layout the bench's nginx
serves (`try_files $uri/__body`: a path such as /api2/json/nodes is both an answer and the
folder of deeper answers). An error answer (fakepve says 500 for a pool it does not hold) is
served as fakepve gave it, status and body, by an exact `location` written to
OUT_DIR/errors.conf, which the bench's nginx includes. Query strings are not part of the file
name: a path asked with two queries must have the same answer for both (fakepve's rights
ignore `path`), else the capture fails. Prints `answers: N`. Python's standard library only.
"""

import json
import os
import ssl
import sys
import urllib.error
import urllib.request

# What cpps reads of each task log (`cpps_proxmox::TASK_LOG_PAGE`: 5 000 lines a page).
LOG_PAGE = 5000
# The logs read per node: its newest tasks for several guests (chain.rs `LOGS_PER_NODE`).
LOGS_PER_NODE = 4


class Capture:
    """fakepve's answers, written where nginx serves them."""

    def __init__(self, info, out):
        self.ctx = ssl.create_default_context(cafile=info['ca_file'])
        self.base = info['url'].rstrip('/') + '/api2/json/'
        self.auth = 'PVEAPIToken={0}={1}'.format(info['token_id'], info['token_secret'])
        self.out = out
        self.count = 0
        self.errors = []
        # Answer bodies by path without query, to refuse two different answers for one path.
        self.bodies = {}

    def get(self, path):
        """The answer's `data`, or None for an error answer (kept for nginx as well)."""
        request = urllib.request.Request(self.base + path, headers={'Authorization': self.auth})
        bare = path.split('?')[0]
        try:
            with urllib.request.urlopen(request, context=self.ctx, timeout=30) as answer:
                status, body = 200, answer.read()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
        self.count += 1
        if self.bodies.setdefault(bare, (status, body)) != (status, body):
            sys.exit('capture.py: {0} has two answers, nginx can serve one'.format(bare))
        if status != 200:
            self.keep_error(bare, status, body)
            return None
        target = os.path.join(self.out, 'api2', 'json', bare, '__body')
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'wb') as f:
            f.write(body)
        return json.loads(body)['data']

    def keep_error(self, bare, status, body):
        text = body.decode('utf-8')
        # nginx would read `$` as a variable in `return`'s text.
        if '$' in text or '$' in bare:
            sys.exit('capture.py: cannot serve the answer of {0} from nginx'.format(bare))
        quoted = text.replace('\\', '\\\\').replace("'", "\\'")
        self.errors.append("location = /api2/json/{0} {{ return {1} '{2}'; }}\n"
                           .format(bare, status, quoted))

    def write_errors(self):
        with open(os.path.join(self.out, 'errors.conf'), 'w') as f:
            f.writelines(self.errors)


def sweep(cap):
    """The inventory sweep's reads and the node statuses: returns (nodes, guests)."""
    for path in ('version', 'cluster/ha/resources', 'cluster/ha/status/current',
                 'access/permissions?path=/vms'):
        cap.get(path)
    nodes = cap.get('nodes')
    # Each node's status: `audit` reads it for every online node.
    for node in nodes:
        if node.get('status') == 'online':
            cap.get('nodes/{0}/status'.format(node['node']))
    guests = cap.get('cluster/resources?type=vm')
    for guest in guests:
        cap.get('nodes/{0}/{1}/{2}/config'.format(guest['node'], guest['type'], guest['vmid']))
    return guests


def logged_tasks(tasks):
    """The tasks of one node's vzdump list whose logs cpps reads (chain.rs `logged_tasks`): the
    LOGS_PER_NODE newest to end of those for several guests (no `id`), then each guest's newest
    own task that ended other than OK."""
    tasks = [t for t in tasks if t.get('type') == 'vzdump']
    shared = [t for t in tasks if t.get('endtime') is not None and not t.get('id')]
    shared.sort(key=lambda t: t['endtime'], reverse=True)
    newest = {}
    for task in tasks:
        guest = task.get('id')
        if guest and task.get('endtime') is not None and task.get('status') != 'OK':
            if guest not in newest or task['starttime'] > newest[guest]['starttime']:
                newest[guest] = task
    return shared[:LOGS_PER_NODE] + [newest[g] for g in sorted(newest)]


def backup_chain(cap, resources):
    """The reads of cpps-topology `src/live/pve/chain.rs` `read`, in its order."""
    cap.get('storage')
    jobs = cap.get('cluster/backup') or []
    known = {g['pool'] for g in resources if g.get('pool') and g.get('vmid') is not None}
    for job in jobs:
        pool = job.get('pool')
        if pool and job.get('enabled') not in (0, False, '0') and pool not in known:
            if cap.get('pools/{0}'.format(pool)) is not None:
                known.add(pool)
    guests = [g for g in resources if g.get('vmid') is not None and not g.get('template')]
    nodes = {g['node'] for g in guests if g.get('node')}
    nodes.update(n['node'] for n in cap.get('nodes') or [] if n.get('status') == 'online')
    for node in sorted(nodes):
        tasks = cap.get('nodes/{0}/tasks?typefilter=vzdump&limit=1000&source=all'.format(node))
        for task in logged_tasks(tasks or []):
            # The first page: nginx serves one answer a path, whatever `start` asks.
            cap.get('nodes/{0}/tasks/{1}/log?start=0&limit={2}'.format(
                task['node'], task['upid'], LOG_PAGE))
    for node in sorted(nodes):
        cap.get('access/permissions?path=/nodes/{0}'.format(node))


def main(info_path, out):
    with open(info_path) as f:
        info = json.load(f)
    cap = Capture(info, out)
    resources = sweep(cap)
    backup_chain(cap, resources)
    cap.write_errors()
    print('answers: {0}'.format(cap.count))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
