//! The double's own tests. Arrays, textures and surfaces: tracked with what they read.

use super::*;

#[test]
fn arrays_textures_and_surfaces_are_tracked() {
    let _serial = serial();
    mode::CHECK.store(true, Relaxed);
    // SAFETY: the double's entry points, called with valid out-pointers (this test's locals),
    // host memory that outlives the calls that read it, and handles the double made: the wrong
    // sequences under test misuse the driver's contract, which the double records, not Rust's.
    unsafe {
        // A resource descriptor: `resType`, then the union's first member at offset 8.
        let resource = |res_type: c_int, first: u64| {
            let mut r = [0u64; 18];
            r[0] = res_type as u64;
            r[1] = first;
            r
        };
        let a = ctx();
        // A correct sequence records nothing: textures over an array, a mipmapped array and
        // device memory, a surface over a level, each destroyed before what it reads.
        assert_eq!(
            violations_of(|| {
                let mut arr = null_mut();
                let _ = cuArray3DCreate_v2(&raw mut arr, null_mut());
                let mut mip = null_mut();
                let _ = cuMipmappedArrayCreate(&raw mut mip, null_mut(), 2);
                let mut level = null_mut();
                let _ = cuMipmappedArrayGetLevel(&raw mut level, mip, 1);
                let mut d = 0;
                let _ = cuMemAlloc_v2(&raw mut d, 4096);
                let mut t = [0; 3];
                for (i, r) in [
                    resource(0, arr as u64),
                    resource(1, mip as u64),
                    resource(2, d + 256),
                ]
                .iter()
                .enumerate()
                {
                    let _ =
                        cuTexObjectCreate(&raw mut t[i], r.as_ptr().cast(), null_mut(), null_mut());
                }
                let mut sf = 0;
                let r = resource(0, level as u64);
                let _ = cuSurfObjectCreate(&raw mut sf, r.as_ptr().cast());
                for x in t {
                    let _ = cuTexObjectDestroy(x);
                }
                let _ = cuSurfObjectDestroy(sf);
                let _ = cuMemFree_v2(d);
                let _ = cuMipmappedArrayDestroy(mip);
                let _ = cuArrayDestroy(arr);
            }),
            0
        );
        // An array destroyed while a texture reads it; a texture destroyed twice.
        let mut arr = null_mut();
        let _ = cuArray3DCreate_v2(&raw mut arr, null_mut());
        let mut t = 0;
        let r = resource(0, arr as u64);
        let _ = cuTexObjectCreate(&raw mut t, r.as_ptr().cast(), null_mut(), null_mut());
        assert_eq!(
            orphans_of(|| {
                let _ = cuArrayDestroy(arr);
            }),
            1,
            "array under a texture"
        );
        let _ = cuTexObjectDestroy(t);
        assert_eq!(
            violations_of(|| {
                let _ = cuTexObjectDestroy(t);
            }),
            1,
            "double destroy"
        );
        // A mipmapped array destroyed while a surface writes one of its levels; the level
        // dies with it.
        let mut mip = null_mut();
        let _ = cuMipmappedArrayCreate(&raw mut mip, null_mut(), 2);
        let mut level = null_mut();
        let _ = cuMipmappedArrayGetLevel(&raw mut level, mip, 0);
        let mut sf = 0;
        let r = resource(0, level as u64);
        let _ = cuSurfObjectCreate(&raw mut sf, r.as_ptr().cast());
        assert_eq!(
            orphans_of(|| {
                let _ = cuMipmappedArrayDestroy(mip);
            }),
            1,
            "mipmapped array under a surface"
        );
        let _ = cuSurfObjectDestroy(sf);
        assert_eq!(
            violations_of(|| {
                let _ = cuSurfObjectCreate(&raw mut sf, r.as_ptr().cast());
            }),
            1,
            "level of a destroyed mipmapped array"
        );
        // Device memory freed under a texture over a view of it (an address inside it).
        let mut d = 0;
        let _ = cuMemAlloc_v2(&raw mut d, 4096);
        let r = resource(3, d + 512);
        let _ = cuTexObjectCreate(&raw mut t, r.as_ptr().cast(), null_mut(), null_mut());
        assert_eq!(
            orphans_of(|| {
                let _ = cuMemFree_v2(d);
            }),
            1,
            "memory under a texture"
        );
        let _ = cuTexObjectDestroy(t);
        // An array of another context.
        let mut arr2 = null_mut();
        let _ = cuArray3DCreate_v2(&raw mut arr2, null_mut());
        let b = ctx();
        let r = resource(0, arr2 as u64);
        assert_eq!(
            violations_of(|| {
                let _ = cuTexObjectCreate(&raw mut t, r.as_ptr().cast(), null_mut(), null_mut());
            }),
            1,
            "array of another context"
        );
        let mut p = null_mut();
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuTexObjectDestroy(t);
        let _ = cuArrayDestroy(arr2);
        let _ = cuCtxDestroy_v2(b);
        let _ = cuCtxPopCurrent_v2(&raw mut p);
        let _ = cuCtxDestroy_v2(a);
    }
}
