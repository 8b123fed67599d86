/work/main/checkdriver/trace/target/debug/deps/custack_trace-a4b64f901eaa736e.d: /work/main/clippy.toml src/lib.rs src/tests.rs src/entries.rs Cargo.toml

/work/main/checkdriver/trace/target/debug/deps/libcustack_trace-a4b64f901eaa736e.rmeta: /work/main/clippy.toml src/lib.rs src/tests.rs src/entries.rs Cargo.toml

/work/main/clippy.toml:
src/lib.rs:
src/tests.rs:
src/entries.rs:
Cargo.toml:

# env-dep:CARGO_MANIFEST_DIR=/work/main/checkdriver/trace
# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
