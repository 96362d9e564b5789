//! The models of the LINSTOR REST API (v1), tolerant of what newer controllers add.
//!
//! Every struct accepts fields it does not know; every enum mirroring a server value keeps
//! unknown values in a last `Unknown(String)` variant; lists and maps sent as `null` decode as
//! empty (`de::null_default`), and an optional field that is missing or `null` is `None` (serde's
//! own rule for `Option`, so those fields carry no `default`). Names in answers are plain `String`s: the controller is the authority on them, and a
//! name this client would not accept as input must still not break decoding of a whole list.

pub mod backup;
pub(crate) mod de;
pub mod misc;
pub mod node;
pub mod rc;
pub mod resource;
pub mod snapshot;
pub mod storage;

cpps_http::named_enum! {
    /// A layer of the storage stack (`LayerType`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum LayerType {
        /// DRBD replication.
        Drbd => "DRBD",
        /// LUKS encryption.
        Luks => "LUKS",
        /// The storage itself.
        Storage => "STORAGE",
        /// NVMe-oF.
        Nvme => "NVME",
        /// dm-writecache.
        Writecache => "WRITECACHE",
        /// dm-cache.
        Cache => "CACHE",
        /// bcache.
        Bcache => "BCACHE",
        _ => Unknown(String),
    }
}
