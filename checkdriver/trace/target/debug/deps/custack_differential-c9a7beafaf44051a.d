/work/main/checkdriver/trace/target/debug/deps/custack_differential-c9a7beafaf44051a.d: /work/main/clippy.toml src/bin/custack-differential.rs Cargo.toml

/work/main/checkdriver/trace/target/debug/deps/libcustack_differential-c9a7beafaf44051a.rmeta: /work/main/clippy.toml src/bin/custack-differential.rs Cargo.toml

/work/main/clippy.toml:
src/bin/custack-differential.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
