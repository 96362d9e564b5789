//! The one table of the PBS API endpoints this crate calls.
//!
//! Every request of the client is built from an entry of [`ENDPOINTS`], and debug builds check
//! that each parameter a method sends is declared in its entry. The conformance test
//! (`tests/conformance.rs`) walks this table against `pbs-apidoc.json`: path, method,
//! parameter names and types, and every field of the typed answer.

use cpps_http::{Method, Request, encode_segment};
use cpps_proxmox::family::ServerVersion;

/// What an endpoint answers inside the `{"data": …}` envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Returns {
    /// One object, decoded into the named type of [`crate::types`] (a `family::` prefix names
    /// a type of `cpps-proxmox`'s `family` module, which makes that call).
    Object(&'static str),
    /// An array of objects of the named type.
    List(&'static str),
    /// An array of objects of the named type that the schema does not describe (it declares
    /// the answer as `null`, as for task logs).
    UndocumentedList(&'static str),
    /// A task id (UPID string), as the schema says.
    Upid,
    /// A task id (UPID string) where the schema says `null`: the job `run` calls, whose
    /// handlers return the worker's UPID (proxmox-backup `src/api2/admin/{sync,verify,prune}.rs`:
    /// `run_*_job(…) -> Result<String, Error>` returning `upid_str`).
    UndocumentedUpid,
}

/// The schema type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParamType {
    /// `string`.
    String,
    /// `integer`.
    Integer,
    /// `boolean`.
    Boolean,
}

impl ParamType {
    /// The name `pbs-apidoc.json` uses for this type.
    pub fn schema_name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            Integer => "integer",
            Boolean => "boolean",
        }
    }
}

use ParamType::{Boolean, Integer, String as Str};

/// One endpoint of the PBS API as this crate uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Endpoint {
    /// The HTTP method.
    pub method: &'static str,
    /// The path below `/api2/json`, with `{name}` placeholders, exactly as in `pbs-apidoc.json`.
    pub path: &'static str,
    /// The parameters the client may send besides the path placeholders (query string for GET,
    /// form body for POST), with their schema type.
    pub params: &'static [(&'static str, ParamType)],
    /// The typed answer.
    pub returns: Returns,
}

/// `GET /version` (read once per client: the release decides the gates below).
pub const VERSION: Endpoint = Endpoint {
    method: "GET",
    path: "/version",
    params: &[],
    returns: Returns::Object("Version"),
};

/// The first release that serves `GET /admin/gc` (the garbage-collection job list):
/// proxmox-backup added `src/api2/admin/gc.rs` ("api: garbage collect job status", April 2024)
/// before the 3.2.0-1 release ("fix #3217: ui: add global prune and GC job view" in
/// `debian/changelog`); PBS 3.0 and 3.1 answer 404. (Issue 14 said 3.2.2; the repository's
/// history puts it in 3.2.0, and the client follows the server.)
pub const GC_JOBS_SINCE: ServerVersion = ServerVersion::new(3, 2, 0);

/// The first release whose `GET /admin/sync` takes `sync-direction` (push sync jobs, PBS
/// 3.3). Up to 3.2, proxmox-backup `src/api2/admin/sync.rs` `list_sync_jobs` declares only
/// `store`, and an object schema without additional properties rejects any other parameter
/// ("schema does not allow additional properties"); PBS 4's schema (`pbs-apidoc.json`) has it.
pub const SYNC_DIRECTION_SINCE: ServerVersion = ServerVersion::new(3, 3, 0);

/// `GET /admin/datastore`.
pub const DATASTORES: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/datastore",
    params: &[],
    returns: Returns::List("Datastore"),
};

/// `GET /admin/datastore/{store}/status`.
pub const DATASTORE_STATUS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/datastore/{store}/status",
    params: &[("verbose", Boolean)],
    returns: Returns::Object("DatastoreStatus"),
};

/// `GET /status/datastore-usage`.
pub const DATASTORE_USAGE: Endpoint = Endpoint {
    method: "GET",
    path: "/status/datastore-usage",
    params: &[],
    returns: Returns::List("DatastoreUsage"),
};

/// `GET /admin/datastore/{store}/namespace`.
pub const NAMESPACES: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/datastore/{store}/namespace",
    params: &[("parent", Str), ("max-depth", Integer)],
    returns: Returns::List("Namespace"),
};

/// `GET /admin/datastore/{store}/groups`.
pub const GROUPS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/datastore/{store}/groups",
    params: &[("ns", Str)],
    returns: Returns::List("BackupGroup"),
};

/// `GET /admin/datastore/{store}/snapshots`.
pub const SNAPSHOTS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/datastore/{store}/snapshots",
    params: &[("ns", Str), ("backup-type", Str), ("backup-id", Str)],
    returns: Returns::List("Snapshot"),
};

/// `GET /admin/datastore/{store}/gc`.
pub const GC_STATUS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/datastore/{store}/gc",
    params: &[],
    returns: Returns::Object("GcStatus"),
};

/// `GET /admin/gc`.
pub const GC_JOBS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/gc",
    params: &[("store", Str)],
    returns: Returns::List("GcStatus"),
};

/// `GET /admin/prune`.
pub const PRUNE_JOBS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/prune",
    params: &[("store", Str)],
    returns: Returns::List("PruneJob"),
};

/// `GET /admin/sync`.
pub const SYNC_JOBS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/sync",
    params: &[("store", Str), ("sync-direction", Str)],
    returns: Returns::List("SyncJob"),
};

/// `GET /admin/verify`.
pub const VERIFY_JOBS: Endpoint = Endpoint {
    method: "GET",
    path: "/admin/verify",
    params: &[("store", Str)],
    returns: Returns::List("VerifyJob"),
};

/// `GET /config/remote`.
pub const REMOTES: Endpoint = Endpoint {
    method: "GET",
    path: "/config/remote",
    params: &[],
    returns: Returns::List("Remote"),
};

/// `POST /admin/sync/{id}/run`: runs a sync job now.
pub const RUN_SYNC_JOB: Endpoint = Endpoint {
    method: "POST",
    path: "/admin/sync/{id}/run",
    params: &[],
    returns: Returns::UndocumentedUpid,
};

/// `POST /admin/verify/{id}/run`: runs a verify job now.
pub const RUN_VERIFY_JOB: Endpoint = Endpoint {
    method: "POST",
    path: "/admin/verify/{id}/run",
    params: &[],
    returns: Returns::UndocumentedUpid,
};

/// `POST /admin/prune/{id}/run`: runs a prune job now.
pub const RUN_PRUNE_JOB: Endpoint = Endpoint {
    method: "POST",
    path: "/admin/prune/{id}/run",
    params: &[],
    returns: Returns::UndocumentedUpid,
};

/// `POST /admin/datastore/{store}/verify`: verifies a datastore, namespace, group or snapshot.
pub const VERIFY_DATASTORE: Endpoint = Endpoint {
    method: "POST",
    path: "/admin/datastore/{store}/verify",
    params: &[
        ("ns", Str),
        ("backup-type", Str),
        ("backup-id", Str),
        ("ignore-verified", Boolean),
        ("outdated-after", Integer),
    ],
    returns: Returns::Upid,
};

/// `GET /nodes/{node}/tasks`.
pub const TASKS: Endpoint = Endpoint {
    method: "GET",
    path: "/nodes/{node}/tasks",
    params: &[
        ("since", Integer),
        ("until", Integer),
        ("limit", Integer),
        ("start", Integer),
        ("running", Boolean),
        ("errors", Boolean),
        ("store", Str),
        ("typefilter", Str),
        ("userfilter", Str),
    ],
    returns: Returns::List("TaskListItem"),
};

/// `GET /nodes/{node}/tasks/{upid}/status`.
pub const TASK_STATUS: Endpoint = Endpoint {
    method: "GET",
    path: "/nodes/{node}/tasks/{upid}/status",
    params: &[],
    returns: Returns::Object("family::TaskStatus"),
};

/// `GET /nodes/{node}/tasks/{upid}/log` (read by `cpps-proxmox`'s task wait when a task fails).
pub const TASK_LOG: Endpoint = Endpoint {
    method: "GET",
    path: "/nodes/{node}/tasks/{upid}/log",
    params: &[("start", Integer), ("limit", Integer)],
    returns: Returns::UndocumentedList("family::LogLine"),
};

/// `POST /access/ticket` (the ticket login of `cpps-proxmox`'s `TicketAuth`).
pub const TICKET: Endpoint = Endpoint {
    method: "POST",
    path: "/access/ticket",
    params: &[("username", Str), ("password", Str)],
    returns: Returns::Object("family::Ticket"),
};

/// Every endpoint the crate calls.
pub const ENDPOINTS: &[&Endpoint] = &[
    &VERSION,
    &DATASTORES,
    &DATASTORE_STATUS,
    &DATASTORE_USAGE,
    &NAMESPACES,
    &GROUPS,
    &SNAPSHOTS,
    &GC_STATUS,
    &GC_JOBS,
    &PRUNE_JOBS,
    &SYNC_JOBS,
    &VERIFY_JOBS,
    &REMOTES,
    &RUN_SYNC_JOB,
    &RUN_VERIFY_JOB,
    &RUN_PRUNE_JOB,
    &VERIFY_DATASTORE,
    &TASKS,
    &TASK_STATUS,
    &TASK_LOG,
    &TICKET,
];

impl Endpoint {
    /// The names of the `{placeholders}` of the path, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &'static str> {
        self.path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
    }

    /// The path with `args` (percent-encoded) in place of the placeholders, relative to the base.
    ///
    /// Panics when the number of arguments does not match the placeholders: that is a bug in
    /// this crate, caught by its tests.
    pub fn fill_path(&self, args: &[&str]) -> String {
        let mut args = args.iter();
        let filled: Vec<String> = self
            .path
            .split('/')
            .skip(1)
            .map(|segment| {
                if segment.starts_with('{') {
                    let arg = args
                        .next()
                        .unwrap_or_else(|| panic!("missing argument for {}", self.path));
                    encode_segment(arg)
                } else {
                    segment.to_owned()
                }
            })
            .collect();
        assert!(
            args.next().is_none(),
            "too many arguments for {}",
            self.path
        );
        filled.join("/")
    }

    /// Starts a call of this endpoint.
    pub(crate) fn call(&'static self, args: &[&str]) -> Call {
        let method = Method::from_bytes(self.method.as_bytes()).unwrap_or(Method::GET);
        Call {
            endpoint: self,
            request: Request::new(method, self.fill_path(args)),
            form: Vec::new(),
        }
    }
}

/// A request being built for one [`Endpoint`]: parameters go in the query string of a GET
/// and in the form body of any other method.
#[derive(Debug)]
pub(crate) struct Call {
    endpoint: &'static Endpoint,
    request: Request,
    form: Vec<(&'static str, String)>,
}

impl Call {
    fn add(mut self, name: &'static str, kind: ParamType, value: String) -> Self {
        debug_assert!(
            self.endpoint.params.contains(&(name, kind)),
            "parameter `{name}` ({}) is not declared for {} {}",
            kind.schema_name(),
            self.endpoint.method,
            self.endpoint.path
        );
        if self.endpoint.method == "GET" {
            self.request = self.request.query(name, value);
        } else {
            self.form.push((name, value));
        }
        self
    }

    /// Adds a string parameter when it is set; debug builds check that the endpoint declares it.
    pub(crate) fn string(self, name: &'static str, value: Option<&str>) -> Self {
        match value {
            Some(value) => self.add(name, ParamType::String, value.to_owned()),
            None => self,
        }
    }

    /// Adds an integer parameter when it is set.
    pub(crate) fn integer(self, name: &'static str, value: Option<i64>) -> Self {
        match value {
            Some(value) => self.add(name, Integer, value.to_string()),
            None => self,
        }
    }

    /// Adds a boolean parameter when it is set (PBS reads `true`/`false`).
    pub(crate) fn boolean(self, name: &'static str, value: Option<bool>) -> Self {
        match value {
            Some(value) => self.add(name, Boolean, value.to_string()),
            None => self,
        }
    }

    /// The finished request.
    pub(crate) fn into_request(self) -> Request {
        if self.endpoint.method == "GET" {
            self.request
        } else {
            self.request.form(&self.form)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_filled_and_encoded() {
        assert_eq!(
            SNAPSHOTS.fill_path(&["store 1"]),
            "admin/datastore/store%201/snapshots"
        );
        assert_eq!(
            TASK_STATUS.fill_path(&["pbs1", "UPID:pbs1:0000:x:"]),
            "nodes/pbs1/tasks/UPID%3Apbs1%3A0000%3Ax%3A/status"
        );
        assert_eq!(DATASTORES.fill_path(&[]), "admin/datastore");
        assert_eq!(
            TASK_STATUS.path_params().collect::<Vec<_>>(),
            ["node", "upid"]
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "parameter `verbose` (boolean) is not declared")]
    fn undeclared_parameters_are_a_bug() {
        let _ = GROUPS.call(&["store1"]).boolean("verbose", Some(true));
    }

    #[test]
    fn declared_parameters_reach_the_query() {
        let request = SNAPSHOTS
            .call(&["store1"])
            .string("backup-type", Some("vm"))
            .string("ns", None)
            .into_request();
        assert_eq!(request.path(), "admin/datastore/store1/snapshots");
        assert_eq!(format!("{request:?}").matches("backup-type").count(), 1);
        assert!(!format!("{request:?}").contains("\"ns\""));
    }

    #[test]
    #[should_panic(expected = "missing argument")]
    fn missing_path_arguments_are_a_bug() {
        let _ = GROUPS.fill_path(&[]);
    }
}
