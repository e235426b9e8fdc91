package dev.provision.engine.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code provision man}: the manual page (roff) made from the command line's own definition, so it
 * says what {@code --help} says: {@code provision man > /usr/local/share/man/man1/provision.1}.
 */
@Command(name = "man", mixinStandardHelpOptions = true, description = {"Print the manual page (man -l <(provision man))."})
final class ManCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandSpec spec;

    private final PrintStream out;

    ManCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() {
        CommandSpec root = spec.root();
        StringBuilder man = new StringBuilder();
        man.append(".TH PROVISION 1\n.SH NAME\nprovision \\- converge hosts to what a YAML playbook describes\n");
        man.append(".SH SYNOPSIS\n.B provision\n[\\fIOPTIONS\\fR] \\fIPLAYBOOK\\fR\n.br\n.B provision\n\\fBdoc\\fR|\\fBmigrate\\fR|\\fBcompletion\\fR|\\fBman\\fR ...\n");
        man.append(".SH DESCRIPTION\n").append(roff(String.join(" ", root.usageMessage().description()))).append('\n');
        man.append(".SH OPTIONS\n");
        for (OptionSpec option : root.options()) {
            if (option.hidden()) {
                continue;
            }
            man.append(".TP\n.B ").append(roff(String.join(", ", option.names())));
            if (option.arity().max() > 0 && !option.paramLabel().isEmpty()) {
                man.append(" \\fI").append(roff(option.paramLabel())).append("\\fR");
            }
            man.append('\n').append(roff(String.join(" ", option.description()).replace("${DEFAULT-VALUE}",
                    String.valueOf(option.defaultValue())))).append('\n');
        }
        man.append(".SH COMMANDS\n");
        root.subcommands().forEach((name, sub) -> man.append(".TP\n.B ").append(name).append('\n')
                .append(roff(String.join(" ", sub.getCommandSpec().usageMessage().description()))).append('\n'));
        man.append(".SH EXIT STATUS\n");
        for (ExitCode code : ExitCode.values()) {
            man.append(".TP\n.B ").append(code.code()).append('\n').append(code.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')).append('\n');
        }
        man.append(".SH SEE ALSO\nThe README of the provision repository; \\fBansible-playbook\\fR(1).\n");
        out.print(man);
        return ExitCode.OK.code();
    }

    /** Text as roff reads it: backslashes doubled, a leading dot or quote kept literal. */
    private static String roff(String text) {
        String escaped = text.replace("\\", "\\\\").replace("-", "\\-");
        return escaped.startsWith(".") || escaped.startsWith("'") ? "\\&" + escaped : escaped;
    }
}
