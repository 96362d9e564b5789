//! The table of every PVE endpoint this crate calls, walked by the conformance test against
//! pve-apidoc.json.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::family::{LogLine, TaskStatus};
use crate::types::{
    BackupJob, ClusterResource, ClusterStatusEntry, GuestCurrentStatus, HaResource, HaStatusEntry,
    LxcConfig, LxcListItem, NodeListItem, NodeStatus, NodeStorage, NotBackedUp, PendingEntry,
    QemuConfig, QemuListItem, Snapshot, TaskListItem, Version,
};

/// What an endpoint returns, as the client reads it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Returns {
    /// A typed object (or an array of them): the names of the fields the type reads.
    Fields(fn() -> &'static [&'static str]),
    /// A configuration map read through accessors: the keys they read (`[n]` = an index).
    Config(&'static [&'static str]),
    /// A task id (UPID string).
    Upid,
    /// Nothing (`null`), as configuration writes answer.
    Nothing,
}

/// One endpoint the client calls.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Endpoint {
    /// HTTP method.
    pub method: &'static str,
    /// Path as in the API viewer (`/nodes/{node}/qemu/{vmid}/config`).
    pub path: &'static str,
    /// Parameter names the client may send (path parameters included).
    pub params: &'static [&'static str],
    /// What it returns.
    pub returns: Returns,
}

impl Endpoint {
    /// The field or key names the client reads from the answer (empty for a UPID).
    pub fn returned_fields(&self) -> &'static [&'static str] {
        match self.returns {
            Returns::Fields(f) => f(),
            Returns::Config(keys) => keys,
            Returns::Upid | Returns::Nothing => &[],
        }
    }
}

/// The names of the fields a `Deserialize` struct reads (serde's `FIELDS`, renames applied).
pub(crate) fn fields_of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe(Option<&'static [&'static str]>);
    struct ProbeDeserializer<'a>(&'a mut Probe);
    impl<'de> Deserializer<'de> for ProbeDeserializer<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0.0 = Some(fields);
            Err(de::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut probe = Probe(None);
    let _ = T::deserialize(ProbeDeserializer(&mut probe));
    probe.0.unwrap_or(&[])
}

const NODE_VMID: &[&str] = &["node", "vmid"];

/// Every endpoint the typed API calls (the raw escape hatch excepted).
pub const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        method: "POST",
        path: "/access/ticket",
        params: &["username", "password", "tfa-challenge"],
        returns: Returns::Fields(|| &["ticket", "CSRFPreventionToken", "NeedTFA"]),
    },
    Endpoint {
        method: "GET",
        path: "/version",
        params: &[],
        returns: Returns::Fields(fields_of::<Version>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes",
        params: &[],
        returns: Returns::Fields(fields_of::<NodeListItem>),
    },
    Endpoint {
        method: "GET",
        path: "/cluster/status",
        params: &[],
        returns: Returns::Fields(fields_of::<ClusterStatusEntry>),
    },
    Endpoint {
        method: "GET",
        path: "/cluster/resources",
        params: &["type"],
        returns: Returns::Fields(fields_of::<ClusterResource>),
    },
    Endpoint {
        method: "GET",
        path: "/cluster/ha/resources",
        params: &[],
        returns: Returns::Fields(fields_of::<HaResource>),
    },
    Endpoint {
        method: "GET",
        path: "/cluster/ha/resources/{sid}",
        params: &["sid"],
        returns: Returns::Fields(fields_of::<HaResource>),
    },
    Endpoint {
        method: "GET",
        path: "/cluster/backup",
        params: &[],
        returns: Returns::Fields(fields_of::<BackupJob>),
    },
    Endpoint {
        method: "GET",
        path: "/cluster/backup-info/not-backed-up",
        params: &[],
        returns: Returns::Fields(fields_of::<NotBackedUp>),
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/vzdump",
        params: &["node", "vmid", "storage", "mode"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/cluster/ha/resources",
        params: &[
            "sid",
            "state",
            "comment",
            "max_restart",
            "max_relocate",
            "group",
            "failback",
        ],
        returns: Returns::Nothing,
    },
    Endpoint {
        method: "DELETE",
        path: "/cluster/ha/resources/{sid}",
        params: &["sid"],
        returns: Returns::Nothing,
    },
    Endpoint {
        method: "POST",
        path: "/cluster/ha/resources/{sid}/migrate",
        params: &["sid", "node"],
        returns: Returns::Nothing,
    },
    Endpoint {
        method: "POST",
        path: "/cluster/ha/resources/{sid}/relocate",
        params: &["sid", "node"],
        returns: Returns::Nothing,
    },
    Endpoint {
        method: "GET",
        path: "/cluster/ha/status/current",
        params: &[],
        returns: Returns::Fields(fields_of::<HaStatusEntry>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/status",
        params: &["node"],
        returns: Returns::Fields(fields_of::<NodeStatus>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/storage",
        params: &["node"],
        returns: Returns::Fields(fields_of::<NodeStorage>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/tasks",
        params: &[
            "node",
            "vmid",
            "typefilter",
            "userfilter",
            "errors",
            "limit",
            "source",
        ],
        returns: Returns::Fields(fields_of::<TaskListItem>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/tasks/{upid}/status",
        params: &["node", "upid"],
        returns: Returns::Fields(fields_of::<TaskStatus>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/tasks/{upid}/log",
        params: &["node", "upid", "start", "limit"],
        returns: Returns::Fields(fields_of::<LogLine>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/qemu",
        params: &["node"],
        returns: Returns::Fields(fields_of::<QemuListItem>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/lxc",
        params: &["node"],
        returns: Returns::Fields(fields_of::<LxcListItem>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/qemu/{vmid}/config",
        params: &["node", "vmid", "current"],
        returns: Returns::Config(QemuConfig::KEYS),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/lxc/{vmid}/config",
        params: &["node", "vmid", "current"],
        returns: Returns::Config(LxcConfig::KEYS),
    },
    Endpoint {
        method: "PUT",
        path: "/nodes/{node}/qemu/{vmid}/config",
        params: &["node", "vmid", "delete", "digest"],
        returns: Returns::Nothing,
    },
    Endpoint {
        method: "PUT",
        path: "/nodes/{node}/lxc/{vmid}/config",
        params: &["node", "vmid", "delete", "digest"],
        returns: Returns::Nothing,
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/qemu/{vmid}/pending",
        params: NODE_VMID,
        returns: Returns::Fields(fields_of::<PendingEntry>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/lxc/{vmid}/pending",
        params: NODE_VMID,
        returns: Returns::Fields(fields_of::<PendingEntry>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/qemu/{vmid}/status/current",
        params: NODE_VMID,
        returns: Returns::Fields(fields_of::<GuestCurrentStatus>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/lxc/{vmid}/status/current",
        params: NODE_VMID,
        returns: Returns::Fields(fields_of::<GuestCurrentStatus>),
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/qemu/{vmid}/status/start",
        params: NODE_VMID,
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/lxc/{vmid}/status/start",
        params: NODE_VMID,
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/qemu/{vmid}/status/stop",
        params: NODE_VMID,
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/lxc/{vmid}/status/stop",
        params: NODE_VMID,
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/qemu/{vmid}/status/shutdown",
        params: &["node", "vmid", "timeout", "forceStop"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/lxc/{vmid}/status/shutdown",
        params: &["node", "vmid", "timeout", "forceStop"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/qemu/{vmid}/migrate",
        params: &["node", "vmid", "target", "online", "with-local-disks"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/lxc/{vmid}/migrate",
        params: &["node", "vmid", "target", "online", "restart", "timeout"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/qemu/{vmid}/snapshot",
        params: NODE_VMID,
        returns: Returns::Fields(fields_of::<Snapshot>),
    },
    Endpoint {
        method: "GET",
        path: "/nodes/{node}/lxc/{vmid}/snapshot",
        params: NODE_VMID,
        returns: Returns::Fields(fields_of::<Snapshot>),
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/qemu/{vmid}/snapshot",
        params: &["node", "vmid", "snapname", "description", "vmstate"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/lxc/{vmid}/snapshot",
        params: &["node", "vmid", "snapname", "description"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "DELETE",
        path: "/nodes/{node}/qemu/{vmid}/snapshot/{snapname}",
        params: &["node", "vmid", "snapname"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "DELETE",
        path: "/nodes/{node}/lxc/{vmid}/snapshot/{snapname}",
        params: &["node", "vmid", "snapname"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/qemu/{vmid}/snapshot/{snapname}/rollback",
        params: &["node", "vmid", "snapname", "start"],
        returns: Returns::Upid,
    },
    Endpoint {
        method: "POST",
        path: "/nodes/{node}/lxc/{vmid}/snapshot/{snapname}/rollback",
        params: &["node", "vmid", "snapname", "start"],
        returns: Returns::Upid,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_reads_renamed_fields() {
        let fields = fields_of::<TaskListItem>();
        assert!(fields.contains(&"type"), "{fields:?}");
        assert!(fields.contains(&"upid"));
        assert!(!fields.contains(&"worker_type"));
    }
}
