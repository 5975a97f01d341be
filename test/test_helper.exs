ExUnit.start(
  exclude: [:host, :prebuilt],
  formatters: [ExUnit.CLIFormatter, Backplane.AgentRuntime.InputSchema.SummaryFormatter]
)
