//! Images behind typed UAVs (`dcl_uav`, `uav_load`/`uav_store`, guide §7.15) and resources
//! (`dcl_resource`, `load`, `sample_l`, guide §7.6): texel formats, conversion between texels
//! and the four 32-bit components an instruction sees, addressing, and sampling.
//!
//! IL declares only an element format class (`_fmtx(unorm)`); the bound memory's real format
//! (`rgba8` or `r8`, ...) is the runtime's, so the [`Image`] a dispatch binds carries it.

/// How one channel of a texel is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelType {
    /// 8-bit unsigned normalised (0…255 ↔ 0.0…1.0).
    Unorm8,
    /// 8-bit signed normalised (−127…127 ↔ −1.0…1.0; −128 reads as −1.0).
    Snorm8,
    /// 8-bit unsigned integer.
    Uint8,
    /// 8-bit signed integer.
    Sint8,
    /// 16-bit unsigned normalised.
    Unorm16,
    /// 16-bit float.
    Float16,
    /// 16-bit unsigned integer.
    Uint16,
    /// 16-bit signed integer.
    Sint16,
    /// 32-bit float.
    Float32,
    /// 32-bit unsigned integer.
    Uint32,
    /// 32-bit signed integer.
    Sint32,
}

impl ChannelType {
    /// Bytes per channel.
    pub fn bytes(self) -> usize {
        match self {
            ChannelType::Unorm8 | ChannelType::Snorm8 | ChannelType::Uint8 | ChannelType::Sint8 => {
                1
            }
            ChannelType::Unorm16
            | ChannelType::Float16
            | ChannelType::Uint16
            | ChannelType::Sint16 => 2,
            ChannelType::Float32 | ChannelType::Uint32 | ChannelType::Sint32 => 4,
        }
    }

    /// Whether instructions see the channel as a float (normalised and float formats).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ChannelType::Unorm8
                | ChannelType::Snorm8
                | ChannelType::Unorm16
                | ChannelType::Float16
                | ChannelType::Float32
        )
    }
}

/// A texel format: 1 to 4 channels (r, g, b, a) of one type, tightly packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexelFormat {
    /// Number of channels, 1–4.
    pub channels: u8,
    /// Their storage.
    pub ty: ChannelType,
}

impl TexelFormat {
    /// Bytes per texel.
    pub fn texel_bytes(self) -> usize {
        usize::from(self.channels.clamp(1, 4)) * self.ty.bytes()
    }
}

/// Image memory bound to a typed UAV or a resource: one mip level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Texel format.
    pub format: TexelFormat,
    /// Width, height (1 for 1-D images), and depth (3-D) or layer count (arrays); unused
    /// dimensions are 1.
    pub size: [u32; 3],
    /// Texels in x-fastest order, then y, then z/layer; `size` product × texel bytes long.
    pub data: Vec<u8>,
}

/// Texture addressing outside [0, 1) (Vulkan `VkSamplerAddressMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AddressMode {
    /// Clamp to the edge texel.
    #[default]
    ClampToEdge,
    /// Wrap around.
    Repeat,
    /// Wrap around, mirrored every other period.
    MirroredRepeat,
    /// Outside the image reads transparent black (0, 0, 0, 0).
    ClampToBorder,
}

/// Sampler state a runtime binds for `sample*_sampler(n)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sampler {
    /// Bilinear filtering instead of nearest.
    pub linear: bool,
    /// Addressing of u, v, w.
    pub address: [AddressMode; 3],
}

/// How many coordinates address an image, and whether the last one is an array layer, by the
/// declaration's `ILPixTexUsage` value (amd-il.md §2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Spatial dimensions (1–3).
    pub dims: usize,
    /// The next coordinate selects a layer.
    pub arrayed: bool,
}

impl Shape {
    /// The shape of `ILPixTexUsage` value `usage`, `None` for kinds il-sim does not address
    /// (cube maps, multisampled).
    pub fn of_usage(usage: u32) -> Option<Shape> {
        let (dims, arrayed) = match usage {
            1 | 7 => (1, false),
            2 => (2, false),
            3 => (3, false),
            8 => (1, true),
            9 => (2, true),
            _ => return None,
        };
        Some(Shape { dims, arrayed })
    }
}

/// The byte offset of texel `(x, y, z)`, `None` when it lies outside the image.
fn texel_offset(image: &Image, x: u64, y: u64, z: u64) -> Option<usize> {
    let [w, h, d] = image.size.map(u64::from);
    if x >= w || y >= h || z >= d {
        return None;
    }
    let index = (z * h + y) * w + x;
    let offset = usize::try_from(index)
        .ok()?
        .checked_mul(image.format.texel_bytes())?;
    let end = offset.checked_add(image.format.texel_bytes())?;
    (end <= image.data.len()).then_some(offset)
}

/// The texel coordinate (x, y, z) an integer address selects under `shape`: the spatial
/// coordinates first, the array layer (the component after them) as z.
fn coordinates(shape: Shape, address: [u32; 4]) -> [u64; 3] {
    let mut c = [0u64; 3];
    for (i, v) in c.iter_mut().enumerate().take(shape.dims) {
        *v = u64::from(address[i]);
    }
    if shape.arrayed {
        c[2] = u64::from(address[shape.dims]);
    }
    c
}

/// The four components of the texel at integer `address`; outside the image, (0, 0, 0, 0)
/// (amd-il.md §7.5: typed loads outside the array return 0).
pub fn load(image: &Image, shape: Shape, address: [u32; 4]) -> [u32; 4] {
    let [x, y, z] = coordinates(shape, address);
    texel_offset(image, x, y, z).map_or([0; 4], |offset| read_texel(image, offset))
}

/// Writes `value` to the texel at integer `address`; outside the image nothing is written.
pub fn store(image: &mut Image, shape: Shape, address: [u32; 4], value: [u32; 4]) {
    let [x, y, z] = coordinates(shape, address);
    if let Some(offset) = texel_offset(image, x, y, z) {
        write_texel(image, offset, value);
    }
}

/// The byte offset of the 32-bit texel an atomic addresses, if the format allows atomics
/// (one 32-bit integer channel) and the texel exists.
pub fn atomic_offset(image: &Image, shape: Shape, address: [u32; 4]) -> Option<usize> {
    let ok = image.format.channels == 1
        && matches!(image.format.ty, ChannelType::Uint32 | ChannelType::Sint32);
    let [x, y, z] = coordinates(shape, address);
    ok.then(|| texel_offset(image, x, y, z)).flatten()
}

/// Converts the stored texel at `offset` to instruction components: normalised and float
/// channels as floats, integers extended to 32 bits; missing channels are (0, 0, 1) with the 1
/// as 1.0 for float formats and as integer 1 otherwise.
fn read_texel(image: &Image, offset: usize) -> [u32; 4] {
    let ty = image.format.ty;
    let one = if ty.is_float() { 1.0f32.to_bits() } else { 1 };
    let mut out = [0, 0, 0, one];
    let size = ty.bytes();
    for (c, slot) in out
        .iter_mut()
        .enumerate()
        .take(usize::from(image.format.channels.min(4)))
    {
        let at = offset + c * size;
        let Some(bytes) = image.data.get(at..at + size) else {
            continue;
        };
        let raw = bytes
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        *slot = match ty {
            ChannelType::Unorm8 => (raw as f32 / 255.0).to_bits(),
            ChannelType::Snorm8 => ((raw as u8 as i8 as f32) / 127.0).max(-1.0).to_bits(),
            ChannelType::Unorm16 => (raw as f32 / 65535.0).to_bits(),
            ChannelType::Float16 => crate::alu::f16_to_f32(raw).to_bits(),
            ChannelType::Sint8 => raw as u8 as i8 as i32 as u32,
            ChannelType::Sint16 => raw as u16 as i16 as i32 as u32,
            ChannelType::Uint8
            | ChannelType::Uint16
            | ChannelType::Float32
            | ChannelType::Uint32
            | ChannelType::Sint32 => raw,
        };
    }
    out
}

/// Converts instruction components to the stored texel at `offset` (guide UAV_STORE: "typed
/// write, converted to the UAV format"): normalised channels clamp and round to nearest even,
/// NaN stores 0; 16-bit floats round to nearest even; narrower integers keep their low bits.
fn write_texel(image: &mut Image, offset: usize, value: [u32; 4]) {
    let ty = image.format.ty;
    let size = ty.bytes();
    for (c, &v) in value
        .iter()
        .enumerate()
        .take(usize::from(image.format.channels.min(4)))
    {
        let f = f32::from_bits(v);
        let norm = |x: f32, lo: f32, scale: f32| {
            if x.is_nan() {
                0.0
            } else {
                (x.clamp(lo, 1.0) * scale).round_ties_even()
            }
        };
        let raw = match ty {
            ChannelType::Unorm8 => norm(f, 0.0, 255.0) as u32,
            ChannelType::Snorm8 => norm(f, -1.0, 127.0) as i32 as u32,
            ChannelType::Unorm16 => norm(f, 0.0, 65535.0) as u32,
            ChannelType::Float16 => crate::alu::f32_to_f16(f),
            _ => v,
        };
        let at = offset + c * size;
        if let Some(bytes) = image.data.get_mut(at..at + size) {
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = (raw >> (8 * i)) as u8;
            }
        }
    }
}

/// Applies an address mode to integer texel coordinate `i` of an axis of `n` texels; `None`
/// means the border (transparent black).
fn wrap(i: i64, n: i64, mode: AddressMode) -> Option<i64> {
    if n <= 0 {
        return None;
    }
    Some(match mode {
        AddressMode::ClampToEdge => i.clamp(0, n - 1),
        AddressMode::Repeat => i.rem_euclid(n),
        AddressMode::MirroredRepeat => {
            let period = i.rem_euclid(2 * n);
            if period < n {
                period
            } else {
                2 * n - 1 - period
            }
        }
        AddressMode::ClampToBorder => {
            if (0..n).contains(&i) {
                i
            } else {
                return None;
            }
        }
    })
}

/// `sample_l` at mip level 0 (il-sim binds one level, so the LOD has no effect): normalised
/// float coordinates, the sampler's filter and address modes (Vulkan's texel selection rules:
/// nearest takes ⌊u·w⌋, linear blends the four texels around u·w − ½), array layers rounded to
/// the nearest integer and clamped.
pub fn sample(image: &Image, shape: Shape, sampler: &Sampler, coords: [f32; 4]) -> [u32; 4] {
    let size = image.size.map(i64::from);
    let layer = if shape.arrayed {
        let l = coords[shape.dims].round_ties_even();
        let max = (size[2] - 1).max(0) as f32;
        if l.is_nan() {
            0
        } else {
            l.clamp(0.0, max) as i64
        }
    } else {
        0
    };
    let fetch = |texel: [i64; 3]| -> [f32; 4] {
        let mut t = [0i64; 3];
        for d in 0..shape.dims {
            match wrap(texel[d], size[d], sampler.address[d]) {
                Some(v) => t[d] = v,
                None => return [0.0; 4],
            }
        }
        if shape.arrayed {
            t[2] = layer;
        }
        let raw = texel_offset(image, t[0] as u64, t[1] as u64, t[2] as u64)
            .map_or([0; 4], |o| read_texel(image, o));
        raw.map(f32::from_bits)
    };
    // Coordinates far outside the image saturate instead of overflowing the integer conversion.
    let scaled = |d: usize| (coords[d] * size[d] as f32).clamp(-1e9, 1e9);
    let result = if !sampler.linear {
        let mut t = [0i64; 3];
        for (d, v) in t.iter_mut().enumerate().take(shape.dims) {
            *v = scaled(d).floor() as i64;
        }
        fetch(t)
    } else {
        let mut base = [0i64; 3];
        let mut frac = [0f32; 3];
        for d in 0..shape.dims {
            let u = scaled(d) - 0.5;
            base[d] = u.floor() as i64;
            frac[d] = u - u.floor();
        }
        let mut acc = [0f32; 4];
        for corner in 0..(1usize << shape.dims) {
            let mut t = base;
            let mut weight = 1.0f32;
            for d in 0..shape.dims {
                if corner >> d & 1 == 1 {
                    t[d] += 1;
                    weight *= frac[d];
                } else {
                    weight *= 1.0 - frac[d];
                }
            }
            let texel = fetch(t);
            for (a, v) in acc.iter_mut().zip(texel) {
                *a += weight * v;
            }
        }
        acc
    };
    if image.format.ty.is_float() {
        result.map(f32::to_bits)
    } else {
        // Integer formats are not filtered; nearest is what Vulkan permits for them.
        let mut t = [0i64; 3];
        for (d, v) in t.iter_mut().enumerate().take(shape.dims) {
            *v = scaled(d).floor() as i64;
        }
        fetch(t).map(f32::to_bits)
    }
}

#[cfg(test)]
mod tests {
    //! Conversions and addressing, checked against the Vulkan conversion rules by hand.
    use super::*;

    fn image(ty: ChannelType, channels: u8, size: [u32; 3], data: Vec<u8>) -> Image {
        Image {
            format: TexelFormat { channels, ty },
            size,
            data,
        }
    }

    const TWO_D: Shape = Shape {
        dims: 2,
        arrayed: false,
    };

    #[test]
    fn unorm8_round_trips_and_rounds_to_nearest_even() {
        let mut img = image(
            ChannelType::Unorm8,
            4,
            [2, 1, 1],
            vec![0, 51, 255, 128, 1, 2, 3, 4],
        );
        let t = load(&img, TWO_D, [0, 0, 0, 0]);
        assert_eq!(t.map(f32::from_bits), [0.0, 0.2, 1.0, 128.0 / 255.0]);
        // 0.5·255 = 127.5 rounds to even 128; −1 and NaN clamp to 0; 2.0 clamps to 255.
        store(
            &mut img,
            TWO_D,
            [1, 0, 0, 0],
            [0.5f32, -1.0, f32::NAN, 2.0].map(f32::to_bits),
        );
        assert_eq!(&img.data[4..], &[128, 0, 0, 255]);
        for c in 0..=255u8 {
            img.data[0] = c;
            let v = load(&img, TWO_D, [0, 0, 0, 0]);
            store(&mut img, TWO_D, [0, 0, 0, 0], v);
            assert_eq!(img.data[0], c);
        }
    }

    #[test]
    fn missing_channels_and_out_of_range() {
        let img = image(
            ChannelType::Float32,
            1,
            [1, 1, 1],
            2.5f32.to_bits().to_le_bytes().to_vec(),
        );
        assert_eq!(
            load(&img, TWO_D, [0, 0, 0, 0]),
            [2.5f32.to_bits(), 0, 0, 1.0f32.to_bits()]
        );
        assert_eq!(load(&img, TWO_D, [1, 0, 0, 0]), [0; 4]);
        assert_eq!(load(&img, TWO_D, [0, 1, 0, 0]), [0; 4]);
        let int = image(ChannelType::Sint8, 2, [1, 1, 1], vec![0xFF, 0x7F]);
        assert_eq!(load(&int, TWO_D, [0, 0, 0, 0]), [0xFFFF_FFFF, 127, 0, 1]);
    }

    #[test]
    fn addressing_of_arrays_and_volumes() {
        let data: Vec<u8> = (0..24).collect();
        let img = image(ChannelType::Uint8, 1, [2, 3, 4], data);
        let volume = Shape {
            dims: 3,
            arrayed: false,
        };
        // (1, 2, 3) → index (3·3 + 2)·2 + 1 = 23.
        assert_eq!(load(&img, volume, [1, 2, 3, 0])[0], 23);
        let array_1d = Shape {
            dims: 1,
            arrayed: true,
        };
        // 1-D array: the second component is the layer, stored as z: (1, layer 2) → 2·2 + 1.
        let layered = image(ChannelType::Uint8, 1, [2, 1, 3], (0..6).collect());
        assert_eq!(load(&layered, array_1d, [1, 2, 0, 0])[0], 5);
        assert_eq!(load(&img, TWO_D, [1, 2, 0, 0])[0], 5);
    }

    #[test]
    fn sampling_nearest_and_linear() {
        // A 2×1 unorm8 image: 0 and 255.
        let img = image(ChannelType::Unorm8, 1, [2, 1, 1], vec![0, 255]);
        let nearest = Sampler::default();
        let at =
            |u: f32, s: &Sampler| f32::from_bits(sample(&img, TWO_D, s, [u, 0.5, 0.0, 0.0])[0]);
        assert_eq!(at(0.25, &nearest), 0.0);
        assert_eq!(at(0.75, &nearest), 1.0);
        assert_eq!(at(1.5, &nearest), 1.0); // clamped to the edge
        let repeat = Sampler {
            linear: false,
            address: [AddressMode::Repeat; 3],
        };
        assert_eq!(at(1.25, &repeat), 0.0);
        let border = Sampler {
            linear: false,
            address: [AddressMode::ClampToBorder; 3],
        };
        assert_eq!(at(-0.25, &border), 0.0);
        let linear = Sampler {
            linear: true,
            address: [AddressMode::ClampToEdge; 3],
        };
        // u·w − ½ = 0.5 at u = 0.5: halfway between the texels.
        assert_eq!(at(0.5, &linear), 0.5);
        assert_eq!(at(0.25, &linear), 0.0);
    }
}
