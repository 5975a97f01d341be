defmodule Mix.Tasks.Compile.InputSchemaNative do
  @shortdoc "Builds the InputSchema NIF with cargo and copies it into priv/"
  @moduledoc """
  Puts the InputSchema NIF into the application's `priv/native/`, where
  `Backplane.AgentRuntime.InputSchema.Native` loads it from, in the project
  itself and in every host that depends on it.

  By default it builds the crate under `native/input_schema` with
  `cargo build --release --locked`, with cargo's target directory under the
  build path (`_build/ENV/lib/backplane_input_schema/native/target`), so that
  the source tree of a dependency stays clean and `mix clean` (in a host,
  `mix clean --deps` or `mix deps.clean`) removes the build. A
  `CARGO_TARGET_DIR` set in the environment is honoured, as cargo itself
  does. Cargo runs only when a Rust source, `Cargo.toml` or `Cargo.lock` is
  newer than the copied library.

  With `BACKPLANE_INPUT_SCHEMA_NIF` set to the path of a prebuilt
  `libinput_schema.so`, that file is copied instead and cargo is not needed
  (release images built without Rust). The library must come from the same
  version of this project, built for the target's OTP and architecture.

  When cargo is missing, or older than the crate's `rust-version`, the
  compile fails with a message that says what to install. When cargo fails,
  its own output has already been printed and `mix compile` fails with it.
  """
  use Mix.Task.Compiler

  # Runs in each app of an umbrella, not once at the umbrella's root.
  @recursive true

  @crate "input_schema"
  @prebuilt_env "BACKPLANE_INPUT_SCHEMA_NIF"

  @impl true
  def run(_args) do
    root = Path.dirname(Mix.Project.project_file())
    target = library_path()

    case System.get_env(@prebuilt_env) do
      prebuilt when prebuilt in [nil, ""] -> build_if_stale(root, target)
      prebuilt -> copy_prebuilt(prebuilt, target)
    end
  end

  @impl true
  def clean do
    File.rm_rf!(target_dir())
    File.rm_rf!(Path.dirname(library_path()))
    :ok
  end

  @doc false
  # Where the library is installed: the app's priv/native in the build path.
  def library_path, do: Path.join([Mix.Project.app_path(), "priv", "native", "lib#{@crate}.so"])

  @doc false
  # cargo's target directory: CARGO_TARGET_DIR when set, else in the build path.
  def target_dir do
    case System.get_env("CARGO_TARGET_DIR") do
      dir when dir in [nil, ""] -> Path.join([Mix.Project.app_path(), "native", "target"])
      dir -> Path.expand(dir)
    end
  end

  defp build_if_stale(root, target) do
    if stale?(sources(root), target) do
      with {:ok, cargo} <- check_cargo(cargo_path(), rust_version(root)) do
        build(cargo, root, target)
      end
    else
      {:noop, []}
    end
  end

  defp copy_prebuilt(prebuilt, target) do
    if File.regular?(prebuilt) do
      if stale?([prebuilt], target) or File.read!(prebuilt) != File.read!(target) do
        Mix.shell().info("Using the prebuilt InputSchema NIF #{prebuilt} (#{@prebuilt_env})")
        install(prebuilt, target)
      else
        {:noop, []}
      end
    else
      fail("#{@prebuilt_env} is set to #{inspect(prebuilt)}, which is not a file")
    end
  end

  defp sources(root) do
    Path.wildcard(Path.join(root, "native/**/*.{rs,toml}")) ++
      Enum.filter([Path.join(root, "Cargo.toml"), Path.join(root, "Cargo.lock")], &File.exists?/1)
  end

  defp stale?(sources, target) do
    case File.stat(target, time: :posix) do
      {:ok, %{mtime: built}} ->
        Enum.any?(sources, fn source -> File.stat!(source, time: :posix).mtime > built end)

      {:error, _} ->
        true
    end
  end

  @doc false
  # `{:ok, cargo}` when `cargo` runs and is at least `minimum` ("1.91"), or
  # the compile's error with what to install.
  def check_cargo(cargo, minimum) do
    remedy =
      "Install Rust #{minimum} or newer with rustup (https://rustup.rs) and make sure " <>
        "`cargo` is on the PATH, or set #{@prebuilt_env} to a prebuilt lib#{@crate}.so " <>
        "(see docs/adoption.md)."

    case cargo_version(cargo) do
      {:ok, version} ->
        if Version.compare(version, Version.parse!(minimum <> ".0")) == :lt do
          fail(
            "the InputSchema NIF needs cargo #{minimum} or newer, found #{version}. " <> remedy
          )
        else
          {:ok, cargo}
        end

      :error ->
        fail(
          "the InputSchema NIF is built with cargo, which was not found (#{cargo}). " <> remedy
        )
    end
  end

  defp cargo_version(cargo) do
    with true <- is_binary(cargo) and File.exists?(cargo),
         {output, 0} <- System.cmd(cargo, ["--version"], stderr_to_stdout: true),
         [_, version] <- Regex.run(~r/^cargo (\d+\.\d+\.\d+)/, output),
         {:ok, version} <- Version.parse(version) do
      {:ok, version}
    else
      _ -> :error
    end
  rescue
    _ -> :error
  end

  # The crate's `rust-version`, the oldest toolchain it builds with.
  defp rust_version(root) do
    manifest = Path.join([root, "native", @crate, "Cargo.toml"])

    case Regex.run(~r/^rust-version\s*=\s*"(\d+\.\d+)"/m, File.read!(manifest)) do
      [_, version] -> version
      nil -> "1.0"
    end
  end

  defp build(cargo, root, target) do
    Mix.shell().info("Compiling NIF crate #{@crate} (cargo build --release)")
    dir = target_dir()
    args = ["build", "--release", "--locked", "-p", @crate, "--color", "never"] ++ features()

    args =
      if File.exists?(Path.join(root, "Cargo.lock")),
        do: args,
        else: List.delete(args, "--locked")

    case System.cmd(cargo, args,
           cd: root,
           env: [{"CARGO_TARGET_DIR", dir}],
           stderr_to_stdout: true,
           into: IO.stream(:stdio, :line)
         ) do
      {_, 0} ->
        built =
          ["so", "dylib"]
          |> Enum.map(&Path.join(dir, "release/lib#{@crate}.#{&1}"))
          |> Enum.find(&File.exists?/1)

        if built,
          do: install(built, target),
          else: fail("cargo succeeded but #{dir}/release/lib#{@crate}.so is missing")

      {_, status} ->
        fail("cargo build failed with exit status #{status} (its output is above)")
    end
  end

  # The test environment's build adds the test probes: `panic_probe/0` (a
  # deliberate panic inside the NIF's guard, for the guard's own test) and
  # `list_length_within/2`; no other build has them.
  defp features do
    if Mix.env() == :test, do: ["--features", "test-probes"], else: []
  end

  defp install(built, target) do
    File.mkdir_p!(Path.dirname(target))
    # Copy to a new inode: a running VM keeps its mapping of the old file.
    tmp = target <> ".tmp"
    File.cp!(built, tmp)
    File.rename!(tmp, target)
    {:ok, []}
  end

  defp cargo_path do
    System.find_executable("cargo") ||
      Path.join([System.user_home() || "/", ".cargo", "bin", "cargo"])
  end

  defp fail(message) do
    Mix.shell().error(message)

    {:error,
     [
       %Mix.Task.Compiler.Diagnostic{
         compiler_name: "input_schema_native",
         file: "native/#{@crate}",
         message: message,
         position: nil,
         severity: :error
       }
     ]}
  end
end
