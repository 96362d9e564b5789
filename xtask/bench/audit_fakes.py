"""Helpers of `cargo xtask bench audit` (Python's standard library only).

    audit_fakes.py serve ROOT PORT_FILE
        One HTTP/1.1 server on a free port of 127.0.0.1 answering a site's PBS (`/api2/json/...`,
        GET) and VyOS router (`POST /retrieve`, `POST /show`) with the answers the cpps-topology
        live tests mount in wiremock (`cpps-topology/tests/live_pbs_vyos.rs`): cpps-pbs's
        fixtures (shaped as PBS's `pbs-apidoc.json` says) and a VyOS configuration from VyOS's
        own test suite (cpps-vyos's `tests/fixtures/vyos-configs`). Writes the port to PORT_FILE,
        counts requests on stderr when stopped, stops when its standard input closes.
    audit_fakes.py kube KUBECONFIG ROOT
        Creates a GPU cluster's objects in the test kube-apiserver: the CRDs of cpps-gpu's
        fixtures (Kueue, Argo CD, cert-manager) and two GPU nodes with `nvidia.com/gpu` capacity.
    audit_fakes.py measure PROGRAM [ARGS...]
        Runs PROGRAM and prints `process_wall_s`, `process_cpu_s` (user + system, from wait4)
        and `process_maxrss_kib` after its own output; exits with its status.
"""

import base64
import http.server
import json
import os
import ssl
import sys
import threading
import time
import urllib.parse
import urllib.request

REQUESTS = [0]


def read(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8') as f:
        return f.read()


def pbs_routes(root):
    """GET path (without /api2/json) -> body; `?ns=pve-b` is keyed with its namespace."""
    fixture = lambda name: read(root, 'cpps-pbs/tests/fixtures/' + name)
    root_only = json.dumps({'data': [{'ns': ''}]})
    empty = json.dumps({'data': []})
    routes = {
        '/admin/datastore': fixture('datastores.json'),
        '/admin/datastore/store1/namespace': fixture('namespaces_store1.json'),
        '/admin/datastore/store1/snapshots?ns=pve-b': fixture('snapshots_pve_b.json'),
        '/admin/datastore/store1/snapshots': fixture('snapshots_store1.json'),
        '/version': json.dumps({'data': {'version': '4.0', 'release': '14', 'repoid': 'd3adb33f'}}),
        '/admin/sync': fixture('sync_jobs.json'),
        '/admin/verify': fixture('verify_jobs.json'),
        '/admin/prune': fixture('prune_jobs.json'),
        '/config/remote': fixture('remotes.json'),
        '/access/permissions': json.dumps({'data': {
            '/': {'Datastore.Audit': True}, '/datastore': {'Datastore.Audit': True}}}),
    }
    for store in ('offsite', 'archive'):
        routes['/admin/datastore/%s/namespace' % store] = root_only
        routes['/admin/datastore/%s/snapshots' % store] = empty
    return routes


def vyos_answers(root):
    """`/show` path words joined by spaces -> printed text (as live_pbs_vyos.rs mounts them)."""
    # vyos-1x `python/vyos/ifconfig/wireguard.py` `show_interface`, as live_pbs_vyos.rs has it.
    wg0 = ('interface: wg0\n  address: 192.168.10.1/24\n'
           '  public key: cHVibGljLWtleS1vZi13ZzAtMDAwMDAwMDAwMDAwMDA=\n  private key: (hidden)\n'
           '  listening port: 7777\n\n  peer: red\n'
           '    public key: ALGWvMJCKpHF2tVH3hEIHqUe9iFfAmZATUUok/WQzks=\n'
           '    latest handshake: 0:00:40\n    status: active\n    allowed ips: 192.168.10.4/32\n'
           '    transfer: 1 MB received, 2 MB sent\n    persistent keepalive: every 20 seconds\n')
    return {
        'interfaces wireguard wg0 summary': wg0,
        'vrrp': 'Name    Interface      VRID  State      Priority  Last Transition\n'
                '------  -----------  ------  -------  ----------  -----------------\n'
                'LAN     eth1              1  MASTER          100  2m3s\n',
        'bgp vrf all summary': '% BGP instance not found\n',
        'vpn ipsec connections': read(root, 'cpps-vyos/tests/fixtures/show/ipsec-connections.txt'),
    }


def handler(root):
    pbs = pbs_routes(root)
    show = vyos_answers(root)
    config = read(root, 'cpps-vyos/tests/fixtures/vyos-configs/dialup-router-medium-vpn.config.boot')
    envelope = lambda data: json.dumps({'success': True, 'data': data, 'error': None})

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = 'HTTP/1.1'
        # The headers and the body are two writes: without this, each answer waits for the
        # client's delayed ACK (40 ms on Linux), which would be the fake's time, not the client's.
        disable_nagle_algorithm = True

        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = body.encode()
            self.send_response(status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            REQUESTS[0] += 1

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            route = url.path[len('/api2/json'):] if url.path.startswith('/api2/json') else None
            ns = urllib.parse.parse_qs(url.query).get('ns', [''])[0]
            body = None
            if route is not None:
                body = pbs.get(route + '?ns=' + ns) if ns else None
                body = body or pbs.get(route)
            if body is None:
                self.answer(404, json.dumps({'data': None, 'message': 'no such path'}))
            else:
                self.answer(200, body)

        def do_POST(self):
            length = int(self.headers.get('Content-Length', '0'))
            try:
                request = json.loads(self.rfile.read(length) or b'{}')
            except ValueError:
                request = {}
            if self.path == '/retrieve':
                self.answer(200, envelope(config))
            elif self.path == '/show':
                text = show.get(' '.join(request.get('path') or []))
                if text is None:
                    self.answer(400, json.dumps(
                        {'success': False, 'data': None, 'error': 'Invalid command'}))
                else:
                    self.answer(200, envelope(text))
            else:
                self.answer(404, json.dumps({'success': False, 'data': None, 'error': 'not found'}))

    return Handler


def serve(root, port_file):
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler(root))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with open(port_file + '.tmp', 'w') as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + '.tmp', port_file)
    sys.stdin.read()
    sys.stderr.write('audit_fakes: %d requests answered\n' % REQUESTS[0])
    server.shutdown()


def kube(kubeconfig, root):
    text = open(kubeconfig, encoding='utf-8').read()
    field = lambda key: next(l.split(':', 1)[1].strip() for l in text.splitlines()
                             if l.strip().startswith(key + ':'))
    server, token = field('server'), field('token')
    # kube-start.sh writes the CA inline (`certificate-authority-data`, base64 PEM).
    ca = base64.b64decode(field('certificate-authority-data')).decode()
    context = ssl.create_default_context(cadata=ca)

    def call(method, path, body, content_type='application/json'):
        request = urllib.request.Request(server + path, data=body, method=method, headers={
            'Authorization': 'Bearer ' + token, 'Content-Type': content_type})
        try:
            with urllib.request.urlopen(request, context=context) as r:
                status, body = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, body = e.code, e.read()
        try:
            return status, json.loads(body or b'{}')
        except ValueError:
            return status, {}

    crds = os.path.join(root, 'cpps-gpu/tests/fixtures/crds')
    for name in sorted(os.listdir(crds)):
        if name.endswith('.yaml'):
            with open(os.path.join(crds, name), 'rb') as f:
                status, _ = call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
                                 f.read(), 'application/yaml')
            if status not in (201, 409):
                sys.exit('audit_fakes: CRD %s: HTTP %d' % (name, status))
    for node in ('gpu-node-1', 'gpu-node-2'):
        body = {'apiVersion': 'v1', 'kind': 'Node', 'metadata': {
            'name': node, 'labels': {'nvidia.com/gpu.present': 'true'}}}
        status, created = call('POST', '/api/v1/nodes', json.dumps(body).encode())
        if status == 201:
            capacity = {'nvidia.com/gpu': '4', 'cpu': '32', 'memory': '256Gi'}
            created['status'] = {'capacity': capacity, 'allocatable': capacity}
            status, _ = call('PUT', '/api/v1/nodes/%s/status' % node,
                             json.dumps(created).encode())
        if status not in (200, 201, 409):
            sys.exit('audit_fakes: node %s: HTTP %d' % (node, status))
    # The custom resources are served once their CRDs are Established.
    for _ in range(300):
        if call('GET', '/apis/kueue.x-k8s.io/v1beta2/clusterqueues', None)[0] == 200:
            return
        time.sleep(0.1)
    sys.exit('audit_fakes: the Kueue CRDs were not served within 30 s')


def measure(argv):
    started = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, dict(os.environ))
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    sys.stdout.flush()
    print('process_wall_s: {0:.6f}'.format(wall))
    print('process_cpu_s: {0:.6f}'.format(usage.ru_utime + usage.ru_stime))
    print('process_maxrss_kib: {0}'.format(usage.ru_maxrss))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == '__main__':
    command = sys.argv[1] if len(sys.argv) > 1 else ''
    if command == 'serve' and len(sys.argv) == 4:
        serve(sys.argv[2], sys.argv[3])
    elif command == 'kube' and len(sys.argv) == 4:
        kube(sys.argv[2], sys.argv[3])
    elif command == 'measure' and len(sys.argv) > 2:
        measure(sys.argv[2:])
    else:
        sys.exit(__doc__)
