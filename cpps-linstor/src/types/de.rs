//! Decoding helpers shared by the models.

use serde::{Deserialize, Deserializer};

/// Decodes a value that the controller may send as `null`, using its default then.
///
/// LINSTOR's Java models serialise absent lists and maps as `null` in places; `#[serde(default)]`
/// alone covers a missing key, not an explicit `null`.
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}
