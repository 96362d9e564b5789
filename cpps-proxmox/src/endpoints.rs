//! The table of every PVE endpoint this crate calls, as data of the Proxmox family's
//! [`Endpoint`] type; the conformance test walks it against pve-apidoc.json with the family's
//! one check (`family::apidoc::ApiDoc::check_table`).

use crate::family::{Answer, Endpoint, LogLine, Param, Returns, ServerVersion, TaskStatus};
use crate::types::{
    BackupJob, ClusterResource, ClusterStatusEntry, GuestCurrentStatus, HaMove, HaResource,
    HaStatusEntry, LxcConfig, LxcListItem, NodeListItem, NodeStatus, NodeStorage, NotBackedUp,
    PendingEntry, PoolInfo, QemuConfig, QemuListItem, Snapshot, StorageConfig, TaskListItem,
    Version,
};

/// The first release whose HA manager has rules instead of groups: `POST
/// /cluster/ha/resources` takes `failback` from it on, and refuses `group` once the groups are
/// migrated (pve-ha-manager 5.0, `src/PVE/API2/HA/Resources.pm`: "invalid parameter 'group':
/// ha groups have been migrated to rules"; "resources: introduce failback property").
pub const HA_RULES_SINCE: ServerVersion = ServerVersion::new(9, 0, 0);

/// Every endpoint the typed API calls (the raw escape hatch excepted).
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint::new(
        "POST",
        "/access/ticket",
        Returns::Object(Answer::keys("Ticket", || {
            &["ticket", "CSRFPreventionToken", "NeedTFA"]
        })),
    )
    .params(&[
        Param::string("username"),
        Param::string("password"),
        Param::string("tfa-challenge"),
    ]),
    Endpoint::new(
        "GET",
        "/version",
        Returns::Object(Answer::of::<Version>("Version")),
    ),
    Endpoint::new(
        "GET",
        "/nodes",
        Returns::List(Answer::of::<NodeListItem>("NodeListItem")),
    ),
    Endpoint::new(
        "GET",
        "/cluster/status",
        Returns::List(Answer::of::<ClusterStatusEntry>("ClusterStatusEntry")),
    ),
    Endpoint::new(
        "GET",
        "/cluster/resources",
        Returns::List(Answer::of::<ClusterResource>("ClusterResource")),
    )
    .params(&[Param::string("type")]),
    Endpoint::new(
        "GET",
        "/cluster/ha/resources",
        Returns::List(Answer::of::<HaResource>("HaResource")),
    ),
    Endpoint::new(
        "GET",
        "/cluster/ha/resources/{sid}",
        Returns::Object(Answer::of::<HaResource>("HaResource")),
    ),
    Endpoint::new(
        "GET",
        "/cluster/backup",
        Returns::List(Answer::of::<BackupJob>("BackupJob")),
    ),
    Endpoint::new(
        "GET",
        "/cluster/backup-info/not-backed-up",
        Returns::List(Answer::of::<NotBackedUp>("NotBackedUp")),
    ),
    Endpoint::new(
        "GET",
        "/pools/{poolid}",
        Returns::Object(Answer::of::<PoolInfo>("PoolInfo")),
    ),
    // Nested pools (`lab/gpu`) only: `GET /pools/{poolid}` cannot name them.
    Endpoint::new(
        "GET",
        "/pools",
        Returns::List(Answer::of::<PoolInfo>("PoolInfo")),
    )
    .params(&[Param::string("poolid")]),
    Endpoint::new("POST", "/nodes/{node}/vzdump", Returns::Upid).params(&[
        Param::string("vmid"),
        Param::string("storage"),
        Param::string("mode"),
    ]),
    Endpoint::new(
        "GET",
        "/cluster/ha/groups",
        Returns::List(Answer::keys("HaGroup", || &["group"])),
    ),
    Endpoint::new("POST", "/cluster/ha/resources", Returns::Nothing).params(&[
        Param::string("sid"),
        Param::string("state"),
        Param::string("comment"),
        Param::integer("max_restart"),
        Param::integer("max_relocate"),
        // PVE 9 takes `group` until the groups are migrated to rules (`ha_groups_migrated`).
        Param::string("group"),
        Param::boolean("failback").since(HA_RULES_SINCE),
    ]),
    Endpoint::new("DELETE", "/cluster/ha/resources/{sid}", Returns::Nothing),
    Endpoint::new(
        "POST",
        "/cluster/ha/resources/{sid}/migrate",
        Returns::Object(Answer::of::<HaMove>("HaMove")),
    )
    .params(&[Param::string("node")]),
    Endpoint::new(
        "POST",
        "/cluster/ha/resources/{sid}/relocate",
        Returns::Object(Answer::of::<HaMove>("HaMove")),
    )
    .params(&[Param::string("node")]),
    Endpoint::new(
        "GET",
        "/cluster/ha/status/current",
        Returns::List(Answer::of::<HaStatusEntry>("HaStatusEntry")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/status",
        Returns::Object(Answer::of::<NodeStatus>("NodeStatus")),
    ),
    Endpoint::new(
        "GET",
        "/storage",
        Returns::List(Answer::of::<StorageConfig>("StorageConfig")),
    )
    .params(&[Param::string("type")]),
    Endpoint::new(
        "GET",
        "/nodes/{node}/storage",
        Returns::List(Answer::of::<NodeStorage>("NodeStorage")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/tasks",
        Returns::List(Answer::of::<TaskListItem>("TaskListItem")),
    )
    .params(&[
        Param::integer("vmid"),
        Param::string("typefilter"),
        Param::string("userfilter"),
        Param::boolean("errors"),
        Param::integer("limit"),
        Param::string("source"),
    ]),
    Endpoint::new(
        "GET",
        "/nodes/{node}/tasks/{upid}/status",
        Returns::Object(Answer::of::<TaskStatus>("family::TaskStatus")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/tasks/{upid}/log",
        Returns::List(Answer::of::<LogLine>("family::LogLine")),
    )
    .params(&[Param::integer("start"), Param::integer("limit")]),
    Endpoint::new(
        "GET",
        "/nodes/{node}/qemu",
        Returns::List(Answer::of::<QemuListItem>("QemuListItem")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/lxc",
        Returns::List(Answer::of::<LxcListItem>("LxcListItem")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/qemu/{vmid}/config",
        Returns::Object(Answer::keys("QemuConfig", || QemuConfig::KEYS)),
    )
    .params(&[Param::boolean("current")]),
    Endpoint::new(
        "GET",
        "/nodes/{node}/lxc/{vmid}/config",
        Returns::Object(Answer::keys("LxcConfig", || LxcConfig::KEYS)),
    )
    .params(&[Param::boolean("current")]),
    Endpoint::new("PUT", "/nodes/{node}/qemu/{vmid}/config", Returns::Nothing)
        .params(&[Param::string("delete"), Param::string("digest")]),
    Endpoint::new("PUT", "/nodes/{node}/lxc/{vmid}/config", Returns::Nothing)
        .params(&[Param::string("delete"), Param::string("digest")]),
    Endpoint::new(
        "GET",
        "/nodes/{node}/qemu/{vmid}/pending",
        Returns::List(Answer::of::<PendingEntry>("PendingEntry")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/lxc/{vmid}/pending",
        Returns::List(Answer::of::<PendingEntry>("PendingEntry")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/qemu/{vmid}/status/current",
        Returns::Object(Answer::of::<GuestCurrentStatus>("GuestCurrentStatus")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/lxc/{vmid}/status/current",
        Returns::Object(Answer::of::<GuestCurrentStatus>("GuestCurrentStatus")),
    ),
    Endpoint::new(
        "POST",
        "/nodes/{node}/qemu/{vmid}/status/start",
        Returns::Upid,
    ),
    Endpoint::new(
        "POST",
        "/nodes/{node}/lxc/{vmid}/status/start",
        Returns::Upid,
    ),
    Endpoint::new(
        "POST",
        "/nodes/{node}/qemu/{vmid}/status/stop",
        Returns::Upid,
    ),
    Endpoint::new(
        "POST",
        "/nodes/{node}/lxc/{vmid}/status/stop",
        Returns::Upid,
    ),
    Endpoint::new(
        "POST",
        "/nodes/{node}/qemu/{vmid}/status/shutdown",
        Returns::Upid,
    )
    .params(&[Param::integer("timeout"), Param::boolean("forceStop")]),
    Endpoint::new(
        "POST",
        "/nodes/{node}/lxc/{vmid}/status/shutdown",
        Returns::Upid,
    )
    .params(&[Param::integer("timeout"), Param::boolean("forceStop")]),
    Endpoint::new("POST", "/nodes/{node}/qemu/{vmid}/migrate", Returns::Upid).params(&[
        Param::string("target"),
        Param::boolean("online"),
        Param::boolean("with-local-disks"),
    ]),
    Endpoint::new("POST", "/nodes/{node}/lxc/{vmid}/migrate", Returns::Upid).params(&[
        Param::string("target"),
        Param::boolean("online"),
        Param::boolean("restart"),
        Param::integer("timeout"),
    ]),
    Endpoint::new(
        "GET",
        "/nodes/{node}/qemu/{vmid}/snapshot",
        Returns::List(Answer::of::<Snapshot>("Snapshot")),
    ),
    Endpoint::new(
        "GET",
        "/nodes/{node}/lxc/{vmid}/snapshot",
        Returns::List(Answer::of::<Snapshot>("Snapshot")),
    ),
    Endpoint::new("POST", "/nodes/{node}/qemu/{vmid}/snapshot", Returns::Upid).params(&[
        Param::string("snapname"),
        Param::string("description"),
        Param::boolean("vmstate"),
    ]),
    Endpoint::new("POST", "/nodes/{node}/lxc/{vmid}/snapshot", Returns::Upid)
        .params(&[Param::string("snapname"), Param::string("description")]),
    Endpoint::new(
        "DELETE",
        "/nodes/{node}/qemu/{vmid}/snapshot/{snapname}",
        Returns::Upid,
    ),
    Endpoint::new(
        "DELETE",
        "/nodes/{node}/lxc/{vmid}/snapshot/{snapname}",
        Returns::Upid,
    ),
    Endpoint::new(
        "POST",
        "/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback",
        Returns::Upid,
    )
    .params(&[Param::boolean("start")]),
    Endpoint::new(
        "POST",
        "/nodes/{node}/lxc/{vmid}/snapshot/{snapname}/rollback",
        Returns::Upid,
    )
    .params(&[Param::boolean("start")]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_renamed_fields() {
        let tasks = ENDPOINTS
            .iter()
            .find(|e| e.path == "/nodes/{node}/tasks")
            .unwrap();
        let fields = tasks.returned_fields();
        assert!(fields.contains(&"type"), "{fields:?}");
        assert!(fields.contains(&"upid"));
        assert!(!fields.contains(&"worker_type"));
    }
}
