package dev.provision.engine.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code provision completion}: a bash (and zsh, through bashcompinit) completion script for every
 * option and subcommand, made from the command line's own definition by picocli.
 * {@code source <(provision completion)} in a shell, or save it in {@code /etc/bash_completion.d/}.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = {"Print a bash completion script: source <(provision completion)."})
final class CompletionCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandSpec spec;

    private final PrintStream out;

    CompletionCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        out.print(AutoComplete.bash("provision", spec.root().commandLine()));
        return ExitCode.OK.code();
    }
}
