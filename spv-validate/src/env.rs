//! [`TargetEnv`], the client environment a module is validated for, spelled the way
//! `spirv-val --target-env` spells it.
//!
//! The environment decides the highest SPIR-V version a module may declare and which
//! client-API rules apply on top of the core ones (spirv.md §2: rules marked "[client]").

use std::fmt;
use std::str::FromStr;

/// The environment a module is validated for.
///
/// Parsing accepts spirv-val's spellings: `vulkan1.0` … `vulkan1.4`, `vulkan1.1spv1.4`,
/// `opencl1.2`, `opencl2.0` … `opencl2.2` (an `embedded` suffix is accepted and ignored),
/// `spv1.0` … `spv1.6`, `universal1.0` … `universal1.6` and plain `universal`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum TargetEnv {
    /// Core SPIR-V only, at the version the module itself declares (`universal`; the default).
    #[default]
    ModuleVersion,
    /// Core SPIR-V 1.`minor` (`spv1.0` … `spv1.6`): modules up to that version are accepted.
    Universal(u8),
    /// Vulkan `major.minor` (1.0 … 1.4) with its client-API rules.
    Vulkan(u8, u8),
    /// Vulkan 1.1 accepting SPIR-V 1.4 modules (`vulkan1.1spv1.4`, VK_KHR_spirv_1_4).
    Vulkan1_1Spv1_4,
    /// OpenCL `major.minor` (1.2, 2.0, 2.1, 2.2).
    OpenCl(u8, u8),
}

impl TargetEnv {
    /// The highest SPIR-V minor version (1.x) a module may declare in this environment;
    /// `None` for [`TargetEnv::ModuleVersion`], which accepts every version.
    ///
    /// Vulkan 1.0 consumes SPIR-V 1.0, 1.1 up to 1.3, 1.2 up to 1.5, 1.3 and 1.4 up to 1.6;
    /// OpenCL 1.2–2.1 consume SPIR-V 1.0 (2.1 also 1.0 only in spirv-val), 2.2 up to 1.2.
    pub fn max_spirv_minor(self) -> Option<u8> {
        Some(match self {
            TargetEnv::ModuleVersion => return None,
            TargetEnv::Universal(minor) => minor,
            TargetEnv::Vulkan(_, 0) => 0,
            TargetEnv::Vulkan(_, 1) => 3,
            TargetEnv::Vulkan1_1Spv1_4 => 4,
            TargetEnv::Vulkan(_, 2) => 5,
            TargetEnv::Vulkan(..) => 6,
            TargetEnv::OpenCl(2, 2) => 2,
            TargetEnv::OpenCl(..) => 0,
        })
    }

    /// Whether Vulkan's client-API rules apply.
    pub fn is_vulkan(self) -> bool {
        matches!(self, TargetEnv::Vulkan(..) | TargetEnv::Vulkan1_1Spv1_4)
    }

    /// Whether OpenCL's client-API rules apply.
    pub fn is_opencl(self) -> bool {
        matches!(self, TargetEnv::OpenCl(..))
    }

    /// The Vulkan version (major, minor), when this is a Vulkan environment.
    pub fn vulkan_version(self) -> Option<(u8, u8)> {
        match self {
            TargetEnv::Vulkan(major, minor) => Some((major, minor)),
            TargetEnv::Vulkan1_1Spv1_4 => Some((1, 1)),
            _ => None,
        }
    }
}

/// The error of parsing a [`TargetEnv`]: the spelling that was not understood.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParseTargetEnvError(pub String);

impl fmt::Display for ParseTargetEnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown target environment `{}` (expected vulkan1.0…vulkan1.4, vulkan1.1spv1.4, \
             opencl1.2, opencl2.0…opencl2.2, spv1.0…spv1.6, universal1.0…universal1.6 or \
             universal)",
            self.0
        )
    }
}

impl std::error::Error for ParseTargetEnvError {}

/// Splits `"1.3"` into `(1, 3)`; both parts must be single decimal numbers.
fn version(text: &str) -> Option<(u8, u8)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

impl FromStr for TargetEnv {
    type Err = ParseTargetEnvError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseTargetEnvError(s.to_owned());
        if s == "universal" {
            return Ok(TargetEnv::ModuleVersion);
        }
        if s == "vulkan1.1spv1.4" {
            return Ok(TargetEnv::Vulkan1_1Spv1_4);
        }
        if let Some(v) = s.strip_prefix("vulkan") {
            return match version(v).ok_or_else(bad)? {
                (1, minor @ 0..=4) => Ok(TargetEnv::Vulkan(1, minor)),
                _ => Err(bad()),
            };
        }
        if let Some(v) = s.strip_prefix("opencl") {
            let v = v.strip_suffix("embedded").unwrap_or(v);
            return match version(v).ok_or_else(bad)? {
                (1, 2) => Ok(TargetEnv::OpenCl(1, 2)),
                (2, minor @ 0..=2) => Ok(TargetEnv::OpenCl(2, minor)),
                _ => Err(bad()),
            };
        }
        if let Some(v) = s
            .strip_prefix("spv")
            .or_else(|| s.strip_prefix("universal"))
        {
            return match version(v).ok_or_else(bad)? {
                (1, minor @ 0..=6) => Ok(TargetEnv::Universal(minor)),
                _ => Err(bad()),
            };
        }
        Err(bad())
    }
}

impl fmt::Display for TargetEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetEnv::ModuleVersion => f.write_str("universal"),
            TargetEnv::Universal(minor) => write!(f, "spv1.{minor}"),
            TargetEnv::Vulkan(major, minor) => write!(f, "vulkan{major}.{minor}"),
            TargetEnv::Vulkan1_1Spv1_4 => f.write_str("vulkan1.1spv1.4"),
            TargetEnv::OpenCl(major, minor) => write!(f, "opencl{major}.{minor}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_spirv_val_spellings_and_round_trips() {
        for text in [
            "vulkan1.0",
            "vulkan1.4",
            "vulkan1.1spv1.4",
            "opencl1.2",
            "opencl2.2",
            "spv1.0",
            "spv1.6",
            "universal",
        ] {
            let env: TargetEnv = text.parse().unwrap();
            assert_eq!(env.to_string(), text);
        }
        assert_eq!("universal1.3".parse(), Ok(TargetEnv::Universal(3)));
        assert_eq!("opencl2.0embedded".parse(), Ok(TargetEnv::OpenCl(2, 0)));
        for bad in [
            "vulkan1.5",
            "vulkan",
            "spv2.0",
            "opencl1.1",
            "metal",
            "spv1.x",
        ] {
            assert!(bad.parse::<TargetEnv>().is_err(), "{bad}");
        }
    }

    #[test]
    fn versions_follow_the_client_apis() {
        // Vulkan 1.1 consumes up to SPIR-V 1.3, 1.2 up to 1.5 (Vulkan spec, "Versions").
        assert_eq!(TargetEnv::Vulkan(1, 1).max_spirv_minor(), Some(3));
        assert_eq!(TargetEnv::Vulkan1_1Spv1_4.max_spirv_minor(), Some(4));
        assert_eq!(TargetEnv::Vulkan(1, 2).max_spirv_minor(), Some(5));
        assert_eq!(TargetEnv::ModuleVersion.max_spirv_minor(), None);
    }
}
