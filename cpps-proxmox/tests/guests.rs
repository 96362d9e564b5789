//! The one generic guest handler, `GuestApi<K>` (`QemuApi` = `GuestApi<Qemu>`, `LxcApi` =
//! `GuestApi<Lxc>`): each kind reaches its own path and sends only the parameters its kind has.
//!
//! The parameters follow the servers' schemas: qemu-server `src/PVE/API2/Qemu.pm` (`snapshot`
//! takes `vmstate`; `migrate_vm` takes `with-local-disks`) and pve-container
//! `src/PVE/API2/LXC/Snapshot.pm` (`snapshot` has no `vmstate`) and `src/PVE/API2/LXC.pm`
//! (`migrate_vm` takes `restart` and `timeout`); `conformance.rs` checks the table against
//! pve-apidoc.json.

mod common;

use common::{data_answer, mount_once, pve_form_call, pve_mock_api, token_client, vmid};
use cpps_proxmox::api::{GuestApi, Lxc, MigrateOptions, Qemu, SnapshotOptions};
use cpps_proxmox::types::SnapshotName;
use serde_json::json;

const VM_UPID: &str = "UPID:pve1:00001234:00005678:65A1B2C3:qmsnapshot:100:root@pam:";
const CT_UPID: &str = "UPID:pve1:00001235:00005679:65A1B2C4:vzsnapshot:200:root@pam:";

#[tokio::test]
async fn each_guest_kind_uses_its_path_and_only_its_own_parameters() {
    let api = pve_mock_api().await;
    let client = token_client(api.base_url().as_str());
    let node = client.node("pve1");
    let name: SnapshotName = "before-upgrade".parse().unwrap();
    let with_ram = SnapshotOptions::default().vmstate(true);
    mount_once(
        &api,
        pve_form_call(
            "POST",
            "nodes/pve1/qemu/100/snapshot",
            &["snapname=before-upgrade", "vmstate=1"],
        ),
        data_answer(json!(VM_UPID)),
    )
    .await;
    mount_once(
        &api,
        pve_form_call(
            "POST",
            "nodes/pve1/lxc/200/snapshot",
            &["snapname=before-upgrade"],
        ),
        data_answer(json!(CT_UPID)),
    )
    .await;
    let vm: GuestApi<Qemu> = node.qemu(vmid(100));
    let ct: GuestApi<Lxc> = node.lxc(vmid(200));
    let upid = vm.snapshot_create(&name, &with_ram).await.unwrap();
    assert_eq!(upid.to_string(), VM_UPID);
    let upid = ct.snapshot_create(&name, &with_ram).await.unwrap();
    assert_eq!(upid.to_string(), CT_UPID);

    let target = "pve2".parse().unwrap();
    let options = MigrateOptions::to(target)
        .with_local_disks(true)
        .restart(true, Some(30));
    mount_once(
        &api,
        pve_form_call(
            "POST",
            "nodes/pve1/qemu/100/migrate",
            &["target=pve2", "with-local-disks=1"],
        ),
        data_answer(json!(VM_UPID)),
    )
    .await;
    mount_once(
        &api,
        pve_form_call(
            "POST",
            "nodes/pve1/lxc/200/migrate",
            &["target=pve2", "restart=1", "timeout=30"],
        ),
        data_answer(json!(CT_UPID)),
    )
    .await;
    vm.migrate(&options).await.unwrap();
    ct.migrate(&options).await.unwrap();
    api.verify().await;
    api.assert_no_unexpected_requests();

    // A container's requests never carry the VM-only parameters, nor a VM's the container's.
    let requests = api.server().received_requests().await.unwrap_or_default();
    for request in &requests {
        let body = String::from_utf8_lossy(&request.body);
        if request.url.path().contains("/lxc/") {
            assert!(
                !body.contains("vmstate") && !body.contains("with-local-disks"),
                "{body}"
            );
        } else {
            assert!(
                !body.contains("restart") && !body.contains("timeout"),
                "{body}"
            );
        }
    }
    assert_eq!(requests.len(), 4);
}
