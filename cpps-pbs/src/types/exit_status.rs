//! Serde helpers for [`ExitStatus`] fields: PBS writes them as text (`OK`, `WARNINGS: 2`,
//! `unknown`, or the error message itself; proxmox-backup's `TaskState` `Display`).

use serde::{Deserialize, Deserializer, Serializer};

use super::ExitStatus;

/// `serialize_with` for `ExitStatus`.
pub(crate) fn serialize<S: Serializer>(
    value: &ExitStatus,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// `serialize_with`/`deserialize_with` for `Option<ExitStatus>`.
pub(crate) mod option {
    use super::*;

    pub(crate) fn serialize<S: Serializer>(
        value: &Option<ExitStatus>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => serializer.collect_str(value),
            None => serializer.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<ExitStatus>, D::Error> {
        let text = Option::<String>::deserialize(deserializer)?;
        Ok(text.map(|text| ExitStatus::parse(&text)))
    }
}
