//! Backup groups and snapshots.

use serde::{Deserialize, Serialize};

use super::{AuthId, BackupType, Upid};

cpps_http::named_enum! {
    /// The result of the last verification of a snapshot (`verification.state`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum VerifyState {
        /// Verified without error (`ok`).
        Ok => "ok",
        /// Verification found damage (`failed`).
        Failed => "failed",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// The last verification of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Verification {
    /// Its result.
    pub state: VerifyState,
    /// The verify task.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub upid: Upid,
}

/// One entry of `GET /admin/datastore/{store}/namespace`: a backup namespace (`""` is the
/// root).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Namespace {
    /// The namespace path (`a/b`), empty for the root.
    pub ns: String,
    /// The first line of its notes.
    #[serde(default)]
    pub comment: Option<String>,
}

/// One entry of `GET /admin/datastore/{store}/groups`: a guest's (or host's) backup group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct BackupGroup {
    /// The backup type.
    pub backup_type: BackupType,
    /// The backup id (the VM id for `vm` and `ct`).
    pub backup_id: String,
    /// Time of the newest snapshot (UNIX epoch).
    pub last_backup: i64,
    /// Number of snapshots.
    pub backup_count: u64,
    /// Archive files of the newest snapshot.
    #[serde(default)]
    pub files: Vec<String>,
    /// The owner.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub owner: Option<AuthId>,
    /// The first line of the group notes.
    #[serde(default)]
    pub comment: Option<String>,
}

/// One archive of a snapshot.
///
/// `pbs-apidoc.json` declares the items of `files` as archive-name strings, but the server
/// serializes `BackupContent` objects (`filename`, `crypt-mode`, `size`; see `SnapshotListItem`
/// in proxmox-backup's `pbs-api-types`). Both forms are accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SnapshotFile {
    /// The archive name only, as the schema says.
    Name(String),
    /// The archive with its encryption mode and size, as servers send it.
    Content {
        /// The archive name.
        filename: String,
        /// `none`, `encrypt` or `sign-only`.
        #[serde(rename = "crypt-mode", default)]
        crypt_mode: Option<String>,
        /// Size in bytes.
        #[serde(default)]
        size: Option<u64>,
    },
}

impl SnapshotFile {
    /// The archive name.
    pub fn name(&self) -> &str {
        match self {
            SnapshotFile::Name(name) | SnapshotFile::Content { filename: name, .. } => name,
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for SnapshotFile {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SnapshotFile".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "anyOf": [{ "type": "string" }, { "type": "object" }] })
    }
}

/// One entry of `GET /admin/datastore/{store}/snapshots`: a backup snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct Snapshot {
    /// The backup type.
    pub backup_type: BackupType,
    /// The backup id (the VM id for `vm` and `ct`).
    pub backup_id: String,
    /// When the backup was taken (UNIX epoch).
    pub backup_time: i64,
    /// Total size of the archives in bytes.
    #[serde(default)]
    pub size: Option<u64>,
    /// The archives.
    #[serde(default)]
    pub files: Vec<SnapshotFile>,
    /// The owner of the group.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub owner: Option<AuthId>,
    /// Whether the snapshot is protected from pruning.
    #[serde(default)]
    pub protected: bool,
    /// The last verification, when the snapshot was ever verified.
    #[serde(default)]
    pub verification: Option<Verification>,
    /// Fingerprint of the encryption key, for encrypted backups.
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// The first line of the notes.
    #[serde(default)]
    pub comment: Option<String>,
}

/// The manifest of a snapshot: the last file a backup writes.
const MANIFEST_BLOB_NAME: &str = "index.json.blob";

/// The client's log, uploaded after the backup; a sync's `encrypted-only` ignores it.
const CLIENT_LOG_BLOB_NAME: &str = "client.log.blob";

impl Snapshot {
    /// Whether the backup finished: its manifest `index.json.blob` exists and the server could
    /// read it, which is when it sends `size`. The snapshot list also holds running and
    /// abandoned backups (proxmox-backup `src/api2/admin/datastore.rs`
    /// `list_snapshots_blocking`; `pbs-datastore/src/backup_info.rs` `is_finished` is the
    /// manifest test). A manifest that cannot be loaded still lists its file but no `size`
    /// (`src/tools/mod.rs` `backup_info_to_snapshot_list_item`, the `Err` arm), and a sync
    /// skips such a snapshot as in progress (`src/server/sync.rs` `filter_out_in_progress`).
    pub fn is_finished(&self) -> bool {
        self.size.is_some() && self.files.iter().any(|f| f.name() == MANIFEST_BLOB_NAME)
    }

    /// Whether every archive is encrypted, as a sync job's `encrypted-only` judges it
    /// (proxmox-backup `src/server/sync.rs` `exclude_not_verified_or_encrypted`: each file
    /// `encrypt`, the manifest `sign-only`, the client log whatever it is). `None` when a
    /// file's mode is not given (the schema's bare archive names).
    pub fn encrypted(&self) -> Option<bool> {
        let mut all = true;
        for file in &self.files {
            let SnapshotFile::Content {
                filename,
                crypt_mode,
                ..
            } = file
            else {
                return None;
            };
            let wanted = match filename.as_str() {
                CLIENT_LOG_BLOB_NAME => continue,
                MANIFEST_BLOB_NAME => "sign-only",
                _ => "encrypt",
            };
            match crypt_mode.as_deref() {
                Some(mode) => all &= mode == wanted,
                None => return None,
            }
        }
        Some(all)
    }

    /// Whether the last verification succeeded.
    pub fn verified_ok(&self) -> bool {
        matches!(
            self.verification,
            Some(Verification {
                state: VerifyState::Ok,
                ..
            })
        )
    }
}
