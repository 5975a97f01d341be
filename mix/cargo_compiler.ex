defmodule Mix.Tasks.Compile.InputSchemaNative do
  @shortdoc "Builds the InputSchema NIF with cargo and copies it into priv/"
  @moduledoc """
  Builds the Rust crate under `native/input_schema` in release mode and
  copies the shared library to `priv/native/libinput_schema.so`.

  Cargo runs only when a Rust source, `Cargo.toml` or `Cargo.lock` is newer
  than the copied library. When cargo fails, its own output has already been
  printed and `mix compile` fails with it.
  """
  use Mix.Task.Compiler

  @crate "input_schema"

  @impl true
  def run(_args) do
    root = File.cwd!()
    target = Path.join([Mix.Project.app_path(), "priv", "native", "lib#{@crate}.so"])
    sources = sources(root)

    if stale?(sources, target) do
      build(root, target)
    else
      {:noop, []}
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

  defp build(root, target) do
    cargo = cargo_path()
    Mix.shell().info("Compiling NIF crate #{@crate} (cargo build --release)")

    args = ["build", "--release", "--locked", "-p", @crate, "--color", "never"]

    args =
      if File.exists?(Path.join(root, "Cargo.lock")),
        do: args,
        else: List.delete(args, "--locked")

    case System.cmd(cargo, args, cd: root, stderr_to_stdout: true, into: IO.stream(:stdio, :line)) do
      {_, 0} ->
        copy(root, target)

      {_, status} ->
        message = "cargo build failed with exit status #{status} (its output is above)"
        Mix.shell().error(message)
        {:error, [diagnostic(message)]}
    end
  end

  defp copy(root, target) do
    built =
      ["so", "dylib"]
      |> Enum.map(&Path.join(root, "target/release/lib#{@crate}.#{&1}"))
      |> Enum.find(&File.exists?/1)

    if built do
      File.mkdir_p!(Path.dirname(target))
      # Copy to a new inode: a running VM keeps its mapping of the old file.
      tmp = target <> ".tmp"
      File.cp!(built, tmp)
      File.rename!(tmp, target)
      {:ok, []}
    else
      message = "cargo succeeded but target/release/lib#{@crate}.so is missing"
      Mix.shell().error(message)
      {:error, [diagnostic(message)]}
    end
  end

  defp cargo_path do
    System.find_executable("cargo") ||
      Path.join([System.user_home!(), ".cargo", "bin", "cargo"])
  end

  defp diagnostic(message) do
    %Mix.Task.Compiler.Diagnostic{
      compiler_name: "input_schema_native",
      file: "native/#{@crate}",
      message: message,
      position: nil,
      severity: :error
    }
  end
end
