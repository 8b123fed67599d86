/work/main/checkdriver/trace/target/debug/deps/custack_trace-6ab7b88b8fcf04f7.d: /work/main/clippy.toml src/lib.rs src/entries.rs Cargo.toml

/work/main/checkdriver/trace/target/debug/deps/libcustack_trace-6ab7b88b8fcf04f7.rmeta: /work/main/clippy.toml src/lib.rs src/entries.rs Cargo.toml

/work/main/clippy.toml:
src/lib.rs:
src/entries.rs:
Cargo.toml:

# env-dep:CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
# env-dep:CLIPPY_CONF_DIR
