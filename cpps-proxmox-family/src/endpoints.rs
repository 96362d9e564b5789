//! The endpoint-table type both Proxmox clients declare their calls in (`cpps_proxmox::ENDPOINTS`,
//! `cpps_pbs::endpoints::ENDPOINTS`), and the request builder that builds a call from an entry.
//!
//! A table is data: each [`Endpoint`] names the method, the path as the API viewer writes it,
//! the parameters the client may send (with their schema type and the releases that have them)
//! and what the client reads from the answer. The one conformance method,
//! `apidoc::ApiDoc::check_table` (feature `test-util`), walks a table against a product's
//! `apidoc.json`.

use cpps_http::{Method, Request, encode_segment};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::ServerVersion;

/// The schema type of a parameter, as the API viewer's schema names it.
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
    /// The name the schema uses for this type.
    pub fn schema_name(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Boolean => "boolean",
        }
    }
}

/// The releases of the server that have an endpoint or a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Gate {
    /// Every release the client supports.
    Always,
    /// This release and later ones.
    Since(ServerVersion),
    /// Releases before this one only.
    Before(ServerVersion),
}

impl Gate {
    /// Whether a server of `version` has it.
    pub fn admits(self, version: ServerVersion) -> bool {
        match self {
            Gate::Always => true,
            Gate::Since(since) => version >= since,
            Gate::Before(before) => version < before,
        }
    }
}

impl std::fmt::Display for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gate::Always => f.write_str("every release"),
            Gate::Since(v) => write!(f, "since {v}"),
            Gate::Before(v) => write!(f, "before {v}"),
        }
    }
}

/// A parameter the client may send (query string of a GET, form body otherwise); the path's
/// `{placeholders}` are not listed, they come from the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Param {
    /// The name, as in the schema.
    pub name: &'static str,
    /// The schema type.
    pub kind: ParamType,
    /// The releases that take it.
    pub gate: Gate,
}

impl Param {
    /// A `string` parameter.
    pub const fn string(name: &'static str) -> Param {
        Param::new(name, ParamType::String)
    }

    /// An `integer` parameter.
    pub const fn integer(name: &'static str) -> Param {
        Param::new(name, ParamType::Integer)
    }

    /// A `boolean` parameter.
    pub const fn boolean(name: &'static str) -> Param {
        Param::new(name, ParamType::Boolean)
    }

    const fn new(name: &'static str, kind: ParamType) -> Param {
        Param {
            name,
            kind,
            gate: Gate::Always,
        }
    }

    /// Taken by `version` and later releases only.
    pub const fn since(self, version: ServerVersion) -> Param {
        Param {
            gate: Gate::Since(version),
            ..self
        }
    }

    /// Taken by releases before `version` only.
    pub const fn before(self, version: ServerVersion) -> Param {
        Param {
            gate: Gate::Before(version),
            ..self
        }
    }
}

/// The type the client decodes an answer into: a name (for messages, and for tests that look
/// a type up by name) and the names of the members it reads.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Answer {
    /// The type's name (`Datastore`, `family::TaskStatus`, `QemuConfig`).
    pub name: &'static str,
    /// The member names the client reads (serde's names, renames applied; the keys a
    /// configuration map's accessors read, `net[n]` for an indexed key).
    pub fields: fn() -> &'static [&'static str],
}

impl Answer {
    /// A `Deserialize` struct: its fields are the ones serde reads ([`fields_of`]).
    pub const fn of<T: for<'de> Deserialize<'de>>(name: &'static str) -> Answer {
        Answer {
            name,
            fields: fields_of::<T>,
        }
    }

    /// A type read through accessors (a configuration map, a private login answer): the
    /// members it reads, listed.
    pub const fn keys(name: &'static str, fields: fn() -> &'static [&'static str]) -> Answer {
        Answer { name, fields }
    }
}

impl PartialEq for Answer {
    fn eq(&self, other: &Answer) -> bool {
        self.name == other.name && (self.fields)() == (other.fields)()
    }
}

impl Eq for Answer {}

/// What an endpoint answers inside the `{"data": …}` envelope, as the client reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Returns {
    /// One object.
    Object(Answer),
    /// An array of objects.
    List(Answer),
    /// An array of objects that the schema does not describe (it declares the answer as
    /// `null`, as PBS's task log).
    UndocumentedList(Answer),
    /// A task id (UPID string), as the schema says.
    Upid,
    /// A task id (UPID string) where the schema says `null` (PBS's job `run` calls).
    UndocumentedUpid,
    /// Nothing the client reads (`null`, or an answer it ignores, as configuration writes).
    Nothing,
}

/// One endpoint a Proxmox client calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Endpoint {
    /// The HTTP method.
    pub method: &'static str,
    /// The path below `/api2/json`, with `{name}` placeholders, exactly as in `apidoc.json`.
    pub path: &'static str,
    /// The parameters the client may send besides the path placeholders.
    pub params: &'static [Param],
    /// What the client reads from the answer.
    pub returns: Returns,
    /// The releases that serve it.
    pub gate: Gate,
}

impl Endpoint {
    /// An endpoint every supported release serves, without parameters.
    pub const fn new(method: &'static str, path: &'static str, returns: Returns) -> Endpoint {
        Endpoint {
            method,
            path,
            params: &[],
            returns,
            gate: Gate::Always,
        }
    }

    /// With these parameters.
    pub const fn params(self, params: &'static [Param]) -> Endpoint {
        Endpoint { params, ..self }
    }

    /// Served by `version` and later releases only.
    pub const fn since(self, version: ServerVersion) -> Endpoint {
        Endpoint {
            gate: Gate::Since(version),
            ..self
        }
    }

    /// `METHOD /path`, as messages name it.
    pub fn id(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The names of the `{placeholders}` of the path, in order.
    pub fn path_params(&self) -> impl Iterator<Item = &'static str> {
        self.path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
    }

    /// The member names the client reads from the answer (none for a UPID or nothing).
    pub fn returned_fields(&self) -> &'static [&'static str] {
        match self.returns {
            Returns::Object(answer) | Returns::List(answer) | Returns::UndocumentedList(answer) => {
                (answer.fields)()
            }
            Returns::Upid | Returns::UndocumentedUpid | Returns::Nothing => &[],
        }
    }

    /// The parameter called `name`, if the table declares it.
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// The path with `args` (percent-encoded) in place of the placeholders, relative to the
    /// API base.
    ///
    /// Panics when the number of arguments does not match the placeholders: that is a bug in
    /// the calling crate, caught by its tests.
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

    /// Starts a request to this endpoint, with `args` in place of the path's placeholders.
    pub fn call(&'static self, args: &[&str]) -> Call {
        let method = Method::from_bytes(self.method.as_bytes()).unwrap_or(Method::GET);
        Call {
            endpoint: self,
            request: Request::new(method, self.fill_path(args)),
            form: Vec::new(),
        }
    }
}

/// A request being built for one [`Endpoint`]: parameters go in the query string of a GET and
/// in the form body of any other method; debug builds check that the table declares each one
/// with its type.
#[derive(Debug)]
pub struct Call {
    endpoint: &'static Endpoint,
    request: Request,
    form: Vec<(&'static str, String)>,
}

impl Call {
    fn add(mut self, name: &'static str, kind: ParamType, value: String) -> Self {
        debug_assert!(
            self.endpoint
                .params
                .iter()
                .any(|p| p.name == name && p.kind == kind),
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

    /// Adds a string parameter when it is set.
    pub fn string(self, name: &'static str, value: Option<&str>) -> Self {
        match value {
            Some(value) => self.add(name, ParamType::String, value.to_owned()),
            None => self,
        }
    }

    /// Adds an integer parameter when it is set.
    pub fn integer(self, name: &'static str, value: Option<i64>) -> Self {
        match value {
            Some(value) => self.add(name, ParamType::Integer, value.to_string()),
            None => self,
        }
    }

    /// Adds a boolean parameter when it is set, as `true`/`false` (which PBS's and PVE's
    /// schema parsers both read as booleans).
    pub fn boolean(self, name: &'static str, value: Option<bool>) -> Self {
        match value {
            Some(value) => self.add(name, ParamType::Boolean, value.to_string()),
            None => self,
        }
    }

    /// The endpoint this call is for.
    pub fn endpoint(&self) -> &'static Endpoint {
        self.endpoint
    }

    /// The finished request.
    pub fn into_request(self) -> Request {
        if self.endpoint.method == "GET" {
            self.request
        } else {
            self.request.form(&self.form)
        }
    }
}

/// The names of the fields a `Deserialize` struct reads (serde's `FIELDS`, renames and aliases
/// applied); empty for a type that is not a plain struct.
pub fn fields_of<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
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

#[cfg(test)]
mod tests {
    use super::*;

    const STATUS: Endpoint = Endpoint::new(
        "GET",
        "/nodes/{node}/tasks/{upid}/status",
        Returns::Object(Answer::of::<crate::TaskStatus>("family::TaskStatus")),
    );
    const LIST: Endpoint = Endpoint::new(
        "GET",
        "/admin/datastore/{store}/snapshots",
        Returns::Nothing,
    )
    .params(&[Param::string("ns"), Param::string("backup-type")]);
    const RUN: Endpoint = Endpoint::new("POST", "/admin/sync/{id}/run", Returns::Upid)
        .params(&[Param::boolean("force").since(ServerVersion::new(3, 3, 0))]);

    #[test]
    fn paths_are_filled_and_encoded() {
        assert_eq!(
            LIST.fill_path(&["store 1"]),
            "admin/datastore/store%201/snapshots"
        );
        assert_eq!(
            STATUS.fill_path(&["pbs1", "UPID:pbs1:0000:x:"]),
            "nodes/pbs1/tasks/UPID%3Apbs1%3A0000%3Ax%3A/status"
        );
        assert_eq!(STATUS.path_params().collect::<Vec<_>>(), ["node", "upid"]);
        assert_eq!(STATUS.id(), "GET /nodes/{node}/tasks/{upid}/status");
    }

    #[test]
    #[should_panic(expected = "missing argument")]
    fn missing_path_arguments_are_a_bug() {
        let _ = LIST.fill_path(&[]);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "parameter `verbose` (boolean) is not declared")]
    fn undeclared_parameters_are_a_bug() {
        let _ = LIST.call(&["store1"]).boolean("verbose", Some(true));
    }

    #[test]
    fn parameters_go_in_the_query_of_a_get_and_the_form_otherwise() {
        let get = LIST
            .call(&["store1"])
            .string("backup-type", Some("vm"))
            .string("ns", None)
            .into_request();
        assert_eq!(get.path(), "admin/datastore/store1/snapshots");
        let shown = format!("{get:?}");
        assert_eq!(shown.matches("backup-type").count(), 1, "{shown}");
        assert!(!shown.contains("\"ns\""), "{shown}");
        let post = RUN.call(&["job 1"]).boolean("force", Some(true));
        assert_eq!(post.endpoint().id(), "POST /admin/sync/{id}/run");
        let post = post.into_request();
        assert_eq!(post.path(), "admin/sync/job%201/run");
        // `force=true` in the form body (10 bytes), nothing in the query string.
        let shown = format!("{post:?}");
        assert!(shown.contains("query: []"), "{shown}");
        assert!(shown.contains("body: 10 bytes"), "{shown}");
    }

    #[test]
    fn gates_admit_their_releases() {
        let v = ServerVersion::new;
        assert!(Gate::Always.admits(v(1, 0, 0)));
        assert!(Gate::Since(v(3, 3, 0)).admits(v(3, 3, 0)));
        assert!(!Gate::Since(v(3, 3, 0)).admits(v(3, 2, 9)));
        assert!(Gate::Before(v(9, 0, 0)).admits(v(8, 4, 1)));
        assert!(!Gate::Before(v(9, 0, 0)).admits(v(9, 0, 0)));
        assert_eq!(RUN.params[0].gate.to_string(), "since 3.3.0");
    }

    #[test]
    fn the_probe_reads_renamed_fields() {
        let fields = STATUS.returned_fields();
        assert!(fields.contains(&"exitstatus"), "{fields:?}");
        assert!(fields.contains(&"upid"), "{fields:?}");
        assert!(RUN.returned_fields().is_empty());
    }
}
