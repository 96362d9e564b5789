"""Captures fakepve's answers to the inventory sweep, for `cargo xtask bench sweep`.

    capture.py FAKEPVE_JSON OUT_DIR

Reads, with the API token of FAKEPVE_JSON, every answer the sweep asks for (the version, the
nodes, each online node's status, the cluster's guests, the HA resources and status, the rights
on /vms, every
guest's config) and writes each
one as OUT_DIR/<path>/__body, the layout the bench's nginx serves (`try_files $uri/__body`: a
path such as /api2/json/nodes is both an answer and the folder of deeper answers). Query
strings are not part of the file name: the sweep asks each path with one query only.
Prints `answers: N`. Python's standard library only.
"""

import json
import os
import ssl
import sys
import urllib.request


def main(info_path, out):
    with open(info_path) as f:
        info = json.load(f)
    ctx = ssl.create_default_context(cafile=info['ca_file'])
    base = info['url'].rstrip('/') + '/api2/json/'
    auth = 'PVEAPIToken={0}={1}'.format(info['token_id'], info['token_secret'])

    def get(path):
        request = urllib.request.Request(base + path, headers={'Authorization': auth})
        with urllib.request.urlopen(request, context=ctx, timeout=30) as answer:
            body = answer.read()
        target = os.path.join(out, 'api2', 'json', path.split('?')[0], '__body')
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, 'wb') as f:
            f.write(body)
        return json.loads(body)['data']

    count = 0
    for path in ('version', 'cluster/ha/resources', 'cluster/ha/status/current',
                 'access/permissions?path=/vms'):
        get(path)
        count += 1
    nodes = get('nodes')
    count += 1
    # Each node's status: `audit` reads it for every online node.
    for node in nodes:
        if node.get('status') == 'online':
            get('nodes/{0}/status'.format(node['node']))
            count += 1
    guests = get('cluster/resources?type=vm')
    count += 1
    for guest in guests:
        get('nodes/{0}/{1}/{2}/config'.format(guest['node'], guest['type'], guest['vmid']))
        count += 1
    print('answers: {0}'.format(count))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
