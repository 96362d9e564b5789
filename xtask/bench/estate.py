"""Writes a CPPS-sized fakepve estate for `cargo xtask bench sweep`.

    estate.py NODES GUESTS OUT.json

Deterministic: the same arguments give the same file. Every second guest is an LXC container
(300 container configs for 600 guests, the sweep's reference estate), the others qemu VMs; about
three in eight containers are privileged. Configs are shaped like the team's (virtio disks and
NICs with VLAN tags, LXC features, mount points), and guests are spread round-robin over nodes
named like the two sites' hosts.
"""

import json
import random
import sys


def main(nodes, guests, out):
    rng = random.Random(20261129)
    names = ['pve-labri-{0:02d}'.format(i + 1) for i in range(7)] + \
            ['pve-ippri-{0:02d}'.format(i + 1) for i in range(6)]
    names = (names + ['pve-extra-{0:02d}'.format(i) for i in range(nodes)])[:nodes]
    estate = {'nodes': names, 'guests': []}
    for i in range(guests):
        vmid = 100 + i
        node = names[i % len(names)]
        mac = 'BC:24:11:{0:02X}:{1:02X}:{2:02X}'.format((i >> 16) & 255, (i >> 8) & 255, i & 255)
        tag = rng.choice([10, 20, 30, 40])
        status = 'running' if rng.random() < 0.85 else 'stopped'
        kind = rng.random()
        if i % 2 == 0:
            cfg = {
                'cores': rng.choice([1, 2, 4, 8]), 'sockets': 1,
                'memory': str(rng.choice([1024, 2048, 4096, 8192, 16384])),
                'ostype': 'l26', 'scsihw': 'virtio-scsi-single', 'agent': '1',
                'scsi0': 'linstor-ssd:vm-{0}-disk-0,iothread=1,size={1}G'.format(vmid, rng.choice([16, 32, 64, 128])),
                'ide2': 'none,media=cdrom', 'boot': 'order=scsi0;ide2',
                'net0': 'virtio={0},bridge=vmbr0,firewall=1,tag={1}'.format(mac, tag),
                'onboot': 1 if rng.random() < 0.7 else 0,
                'tags': rng.choice(['prod', 'lab', 'prod;web', 'research']),
            }
            estate['guests'].append({'vmid': vmid, 'name': 'vm-{0}'.format(vmid), 'status': status,
                                     'node': node, 'config': cfg})
        else:
            privileged = kind < 0.375
            cfg = {
                'hostname': 'ct-{0}'.format(vmid), 'ostype': 'debian', 'arch': 'amd64',
                'cores': rng.choice([1, 2, 4]), 'memory': rng.choice([512, 1024, 2048]), 'swap': 512,
                'rootfs': 'linstor-ssd:vm-{0}-disk-0,size={1}G'.format(vmid, rng.choice([8, 16, 32])),
                'net0': 'name=eth0,bridge=vmbr0,hwaddr={0},ip=dhcp,tag={1},type=veth'.format(mac, tag),
                'onboot': 1,
            }
            if privileged:
                cfg['features'] = 'nesting=1'
            else:
                cfg['unprivileged'] = 1
                cfg['features'] = 'keyctl=1,nesting=1'
            if rng.random() < 0.3:
                cfg['mp0'] = 'linstor-ssd:vm-{0}-disk-1,mp=/srv,size=32G'.format(vmid)
            estate['guests'].append({'vmid': vmid, 'type': 'lxc', 'name': 'ct-{0}'.format(vmid),
                                     'status': status, 'node': node, 'config': cfg})
    with open(out, 'w') as f:
        json.dump(estate, f)


if __name__ == '__main__':
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
