"""Serve fakepve (PyPI `fakepve`) for the cpps-proxmox integration tests.

    serve.py STATE_DIR GUESTS_JSON

Listens on 127.0.0.1 only: the fake PVE API over HTTPS with a certificate signed by a CA made
here (written to STATE_DIR/ca.pem, like /etc/pve/pve-root-ca.pem), plus a small HTTP control
endpoint through which the Rust tests drive fakepve's Python fault API:

    POST /fail            {"method", "suffix", "status", "message", "times"?}  -> pve.fail(...)
    POST /slow_network    {"latency"}   (PVE seconds; scaled by the time scale)
    POST /revoke_tickets                                                      -> pve.revoke_tickets()
    POST /tfa             {"on": bool}  (password logins get a TOTP challenge)
    POST /reset           clears every fault
    GET  /requests?since=N  the requests fakepve recorded from index N: [{method, path, headers}]

When ready it writes STATE_DIR/fakepve.json (url, ca_file, fingerprint, token, user, password,
control url) and STATE_DIR/other-ca.pem (an unrelated CA, for negative TLS tests).
"""

import asyncio
import datetime
import hashlib
import ipaddress
import json
import os
import secrets
import sys

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from fakepve import FakePve

HOST = '127.0.0.1'
USER = 'root@pam'
PASSWORD = 'secret'
TOKEN_ID = 'root@pam!cpps-tests'
# Real seconds per PVE second: tasks take a little time, so waiting is really tested.
TIME_SCALE = 0.05


def make_ca(name):
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def make_leaf(ca_key, ca_cert):
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, 'pve-ippri-31')]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([
                x509.DNSName('localhost'), x509.IPAddress(ipaddress.ip_address(HOST))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return key, cert


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def load_guests(pve, path):
    with open(path) as f:
        estate = json.load(f)
    for node in estate.get('nodes', []):
        pve.add_node(node)
    # fakepve starts with a node `pve1`; this estate names its own.
    if estate.get('nodes') and 'pve1' not in estate['nodes']:
        pve.nodes.pop('pve1', None)
    for g in estate['guests']:
        if g.get('type', 'qemu') == 'lxc':
            guest = pve.add_ct(g['vmid'], g.get('name'), node=g['node'], status=g.get('status', 'stopped'),
                               config=g.get('config', {}))
        else:
            guest = pve.add_vm(g['vmid'], g['name'], node=g['node'], status=g.get('status', 'stopped'),
                               config=g.get('config', {}))
        if g.get('type') == 'lxc' and 'unprivileged' not in g.get('config', {}):
            # fakepve applies the creation default (unprivileged: 1); a container created
            # privileged on older PVE has no `unprivileged` key at all, which is the case kept here.
            guest.config.pop('unprivileged', None)
        for key in ('shutdown_secs', 'start_secs', 'stop_secs', 'start_error', 'ha_state'):
            if key in g:
                setattr(guest, key, g[key])


def control_app(pve):
    async def fail(request):
        b = await request.json()
        pve.fail(b['method'], b['suffix'], b['status'], b['message'], times=b.get('times'))
        return web.json_response({'ok': True})

    async def slow(request):
        b = await request.json()
        pve.slow_network(float(b['latency']))
        return web.json_response({'ok': True})

    async def revoke(request):
        pve.revoke_tickets()
        return web.json_response({'ok': True})

    async def tfa(request):
        b = await request.json()
        pve.tfa = bool(b.get('on'))
        return web.json_response({'ok': True})

    async def backup(request):
        # fakepve's own vzdump of one guest (`FakePve.backup`): a `vzdump` task named after the
        # guest, as pve-manager `PVE/API2/VZDump.pm` names a one-guest task.
        b = await request.json()
        upid = await pve.backup(int(b['vmid']), secs=float(b.get('secs', 0)))
        return web.json_response({'upid': upid})

    async def reset(request):
        pve.failures.clear()
        pve.network.update(latency=0.0, jitter=0.0, node_latency={}, drop_rate=0.0, hang_rate=0.0)
        pve.tfa = False
        return web.json_response({'ok': True})

    async def requests(request):
        since = int(request.query.get('since', '0'))
        seen = []
        for entry in pve.requests[since:]:
            method, path = entry[0], entry[1]
            seen.append({'method': method, 'path': path})
        return web.json_response({'total': len(pve.requests), 'requests': seen})

    app = web.Application()
    app.router.add_post('/fail', fail)
    app.router.add_post('/slow_network', slow)
    app.router.add_post('/revoke_tickets', revoke)
    app.router.add_post('/tfa', tfa)
    app.router.add_post('/reset', reset)
    app.router.add_post('/backup', backup)
    app.router.add_get('/requests', requests)
    return app


async def main(state_dir, guests):
    os.makedirs(state_dir, exist_ok=True)
    ca_key, ca_cert = make_ca('cpps test PVE root CA')
    leaf_key, leaf_cert = make_leaf(ca_key, ca_cert)
    _, other_ca = make_ca('unrelated CA')
    ca_file = os.path.join(state_dir, 'ca.pem')
    with open(ca_file, 'wb') as f:
        f.write(pem(ca_cert))
    with open(os.path.join(state_dir, 'other-ca.pem'), 'wb') as f:
        f.write(pem(other_ca))
    cert_file = os.path.join(state_dir, 'node.pem')
    key_file = os.path.join(state_dir, 'node.key')
    with open(cert_file, 'wb') as f:
        f.write(pem(leaf_cert) + pem(ca_cert))
    with os.fdopen(os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 'wb') as f:
        f.write(leaf_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                       serialization.NoEncryption()))
    der = leaf_cert.public_bytes(serialization.Encoding.DER)
    fingerprint = ':'.join('{0:02X}'.format(b) for b in hashlib.sha256(der).digest())

    pve = FakePve(user=USER, password=PASSWORD, host=HOST, port=0)
    pve.time_scale = TIME_SCALE
    token_secret = secrets.token_hex(16)
    pve.apitokens[TOKEN_ID] = token_secret
    load_guests(pve, guests)
    await pve.start(cert_file, key_file)

    runner = web.AppRunner(control_app(pve))
    await runner.setup()
    site = web.TCPSite(runner, HOST, 0)
    await site.start()
    control_port = runner.addresses[0][1]

    state = {
        'url': 'https://{0}:{1}/'.format(HOST, pve.port),
        'ca_file': ca_file,
        'other_ca_file': os.path.join(state_dir, 'other-ca.pem'),
        'fingerprint': fingerprint,
        'token_id': TOKEN_ID,
        'token_secret': token_secret,
        'user': USER,
        'password': PASSWORD,
        'control_url': 'http://{0}:{1}/'.format(HOST, control_port),
        'time_scale': TIME_SCALE,
    }
    tmp = os.path.join(state_dir, 'fakepve.json.tmp')
    with open(tmp, 'w') as f:
        json.dump(state, f, indent=2)
    os.replace(tmp, os.path.join(state_dir, 'fakepve.json'))
    print('fakepve on {0}, control on {1}'.format(state['url'], state['control_url']), flush=True)
    await asyncio.Event().wait()


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: serve.py STATE_DIR GUESTS_JSON')
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2]))
    except KeyboardInterrupt:
        pass
