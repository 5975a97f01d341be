defmodule Backplane.AgentRuntime.InputSchema.ClusterTest do
  # Compiled schemas across real nodes: peers started with `:peer` on this
  # machine (loopback), each running the library. A `%Compiled{}` made on
  # one node is sent with `:erpc`, kept in a Mnesia table replicated on
  # every node, written to disk and read back by a restarted node, and kept
  # validating after the node that compiled it is gone. Every result must
  # be exactly the compiling node's.
  use ExUnit.Case, async: false

  alias Backplane.AgentRuntime.Error
  alias Backplane.AgentRuntime.InputSchema

  @moduletag timeout: 300_000

  @schema %{
    "type" => "object",
    "properties" => %{
      "n" => %{"type" => "integer", "minimum" => 1},
      "tags" => %{"type" => "array", "items" => %{"enum" => ["a", "b"]}, "uniqueItems" => true}
    },
    "required" => ["n"],
    "additionalProperties" => false
  }

  @calls [
    {%{"n" => 1}, []},
    {%{"n" => 2, "tags" => ["a", "b"]}, []},
    {%{"n" => 0}, []},
    {%{"tags" => ["a", "a", "c"], "x" => 1}, [errors: :all]},
    {%{"n" => "1"}, []}
  ]

  # Runs on the peers, where the test's own modules are not loaded.
  @probe """
  defmodule ClusterProbe do
    alias Backplane.AgentRuntime.InputSchema

    def results(compiled, calls) do
      for {arguments, opts} <- calls, do: InputSchema.validate(compiled, arguments, opts)
    end

    def compile_and_store(name, schema) do
      {:ok, compiled} = InputSchema.compile(schema)
      # sync_transaction returns once every replica has committed the row;
      # a dirty write (or a plain transaction) may reach the other nodes
      # after the call returns.
      {:atomic, :ok} =
        :mnesia.sync_transaction(fn -> :mnesia.write({:tools, name, compiled}) end)
      compiled
    end

    def results_from_table(name, calls) do
      [{:tools, ^name, compiled}] = :mnesia.dirty_read(:tools, name)
      results(compiled, calls)
    end

    def compile_and_write(path, schema) do
      {:ok, compiled} = InputSchema.compile(schema)
      File.write!(path, :erlang.term_to_binary(compiled))
      compiled
    end

    def results_from_file(path, calls) do
      results(:erlang.binary_to_term(File.read!(path)), calls)
    end

    def keep(compiled), do: :persistent_term.put(__MODULE__, compiled)
    def results_of_kept(calls), do: results(:persistent_term.get(__MODULE__), calls)
  end
  """

  setup_all do
    {_, 0} = System.cmd("epmd", ["-daemon"])

    unless Node.alive?() do
      {:ok, _} = :net_kernel.start([:"input_schema_test@127.0.0.1", :longnames])
      on_exit(fn -> :net_kernel.stop() end)
    end

    :ok
  end

  defp expected,
    do: for({arguments, opts} <- @calls, do: InputSchema.validate(@schema, arguments, opts))

  defp start_peer(name) do
    paths = Enum.flat_map(:code.get_path(), &[~c"-pa", &1])

    {:ok, peer, node} =
      :peer.start_link(%{
        name: name,
        host: ~c"127.0.0.1",
        longnames: true,
        args: paths,
        wait_boot: 60_000
      })

    {:ok, _} = :erpc.call(node, Application, :ensure_all_started, [:backplane_input_schema])
    [{ClusterProbe, _}] = :erpc.call(node, Code, :compile_string, [@probe])
    {peer, node}
  end

  defp local_results(compiled) do
    for {arguments, opts} <- @calls, do: InputSchema.validate(compiled, arguments, opts)
  end

  defp unique(name), do: :"#{name}_#{System.unique_integer([:positive])}"

  defp misses(node), do: :erpc.call(node, InputSchema, :cache_info, []).misses

  test "a schema compiled on one node validates exactly on every other, compiled again once per node" do
    {peer_a, a} = start_peer(unique(:a))
    {peer_b, b} = start_peer(unique(:b))
    {:ok, compiled} = :erpc.call(a, InputSchema, :compile, [@schema])
    want = :erpc.call(a, ClusterProbe, :results, [compiled, @calls])
    assert want == expected()
    assert {:error, %Error{class: :validation}} = Enum.at(want, 2)

    before = misses(b)
    assert :erpc.call(b, ClusterProbe, :results, [compiled, @calls]) == want
    # The first call on b compiled the schema and filed it under its
    # source; every later call found it there.
    assert misses(b) - before == 2
    assert :erpc.call(b, ClusterProbe, :results, [compiled, @calls]) == want
    assert misses(b) - before == 2

    # On this node too (a third one), and through a term_to_binary round trip.
    assert local_results(compiled) == want
    assert local_results(:erlang.binary_to_term(:erlang.term_to_binary(compiled))) == want

    :peer.stop(peer_a)
    :peer.stop(peer_b)
  end

  test "a compiled schema in a Mnesia table replicated on three nodes validates on each" do
    peers = for name <- [:m1, :m2, :m3], do: start_peer(unique(name))
    nodes = for {_, node} <- peers, do: node
    [first | others] = nodes

    for node <- nodes, do: :ok = :erpc.call(node, :mnesia, :start, [])
    {:ok, _} = :erpc.call(first, :mnesia, :change_config, [:extra_db_nodes, others])

    {:atomic, :ok} =
      :erpc.call(first, :mnesia, :create_table, [
        :tools,
        [attributes: [:name, :compiled], ram_copies: nodes]
      ])

    for node <- nodes, do: :ok = :erpc.call(node, :mnesia, :wait_for_tables, [[:tools], 30_000])

    _ = :erpc.call(first, ClusterProbe, :compile_and_store, ["read", @schema])

    for node <- nodes do
      assert :erpc.call(node, ClusterProbe, :results_from_table, ["read", @calls]) == expected(),
             "on #{node}"
    end

    for {peer, _} <- peers, do: :peer.stop(peer)
  end

  test "a node restarted reads a compiled schema back from disk and validates exactly" do
    path = Backplane.Test.Scratch.path!("input_schema_compiled")

    on_exit(fn -> File.rm(path) end)
    name = unique(:disk)

    {peer, node} = start_peer(name)
    _ = :erpc.call(node, ClusterProbe, :compile_and_write, [path, @schema])
    want = :erpc.call(node, ClusterProbe, :results_from_file, [path, @calls])
    assert want == expected()
    :peer.stop(peer)

    # The same node name, a new VM: the reference in the file is dead.
    {peer, ^node} = start_peer(name)
    assert :erpc.call(node, ClusterProbe, :results_from_file, [path, @calls]) == want
    :peer.stop(peer)
  end

  test "the node that compiled a schema goes down; the others keep validating with it" do
    {peer_a, a} = start_peer(unique(:origin))
    others = for name <- [:b, :c], do: start_peer(unique(name))
    {:ok, compiled} = :erpc.call(a, InputSchema, :compile, [@schema])
    # The struct came here and went back: a reference that has crossed to
    # another node is foreign even to the node that made it, and the source
    # answers there too.
    want = :erpc.call(a, ClusterProbe, :results, [compiled, @calls])
    assert want == expected()

    for {_, node} <- others do
      :ok = :erpc.call(node, ClusterProbe, :keep, [compiled])
      assert :erpc.call(node, ClusterProbe, :results_of_kept, [@calls]) == want
    end

    :peer.stop(peer_a)
    refute a in Node.list()

    for {_, node} <- others do
      for _ <- 1..3 do
        assert :erpc.call(node, ClusterProbe, :results_of_kept, [@calls]) == want
      end
    end

    for {peer, _} <- others, do: :peer.stop(peer)
  end
end
