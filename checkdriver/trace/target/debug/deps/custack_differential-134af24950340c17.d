/work/main/checkdriver/trace/target/debug/deps/custack_differential-134af24950340c17.d: /work/main/clippy.toml src/bin/custack-differential.rs Cargo.toml

/work/main/checkdriver/trace/target/debug/deps/libcustack_differential-134af24950340c17.rmeta: /work/main/clippy.toml src/bin/custack-differential.rs Cargo.toml

/work/main/clippy.toml:
src/bin/custack-differential.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
