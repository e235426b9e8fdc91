package dev.provision.engine.cli;

import dev.provision.engine.exec.ModuleRegistry;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.Suggestions;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code provision doc [MODULE]} (Ansible's {@code ansible-doc}): the modules, or one module's
 * parameters as the engine validates them, from the same {@link ParamSpec} (so the page is never
 * out of date).
 */
@Command(name = "doc", mixinStandardHelpOptions = true,
        description = {"List the modules, or show one module's parameters (as ansible-doc does)."})
final class DocCommand implements Callable<Integer> {
    @Parameters(paramLabel = "MODULE", arity = "0..1", description = "A module name, e.g. sysctl.")
    String module;

    private final PrintStream out;
    private final PrintStream err;

    DocCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call() {
        ModuleRegistry modules = ModuleRegistry.load();
        if (module == null) {
            out.println("Modules (provision doc MODULE shows one):");
            new TreeSet<>(modules.names()).forEach(n -> out.println("  " + n));
            return ExitCode.OK.code();
        }
        Optional<ParamSpec> spec = modules.spec(module);
        if (spec.isEmpty()) {
            err.println("provision: no module '" + module + "'" + Suggestions.closest(module, modules.names())
                    .map(s -> " (did you mean " + s + "?)").orElse("") + "; provision doc lists them");
            return ExitCode.USAGE.code();
        }
        String description = modules.module(module).map(m -> m.description().strip()).orElse("");
        // the description is text, not a replacement template: a $ or a backslash in it stays as written
        out.print(page(module, spec.get()).replaceFirst("\n\n", java.util.regex.Matcher.quoteReplacement(
                description.isEmpty() ? "\n\n" : "\n\n" + description + "\n\n")));
        return ExitCode.OK.code();
    }

    static String page(String name, ParamSpec spec) {
        StringBuilder page = new StringBuilder(name).append("\n\nParameters:\n");
        List<ParamSpec.Param> params = new ArrayList<>(spec.params().values());
        params.sort(Comparator.comparing((ParamSpec.Param p) -> !p.required()).thenComparing(ParamSpec.Param::name));
        int width = params.stream().mapToInt(p -> p.name().length()).max().orElse(4) + 2;
        for (ParamSpec.Param p : params) {
            List<String> facts = new ArrayList<>();
            facts.add(p.type().name().toLowerCase(java.util.Locale.ROOT));
            facts.add(p.required() ? "required" : p.defaultValue().map(d -> "default: " + d).orElse("optional"));
            if (!p.choices().isEmpty()) {
                facts.add("one of: " + String.join(", ", p.choices()));
            }
            if (!p.aliases().isEmpty()) {
                facts.add("aliases: " + String.join(", ", p.aliases()));
            }
            if (p.secret()) {
                facts.add("secret: never shown");
            }
            page.append("  ").append(String.format("%-" + width + "s", p.name())).append(String.join("; ", facts)).append('\n');
        }
        if (!spec.refused().isEmpty()) {
            page.append("\nNot supported (refused with the reason; false or no is accepted as not given):\n");
            spec.refused().forEach((n, why) -> page.append("  ").append(n).append(": ").append(why).append('\n'));
        }
        if (spec.acceptsAnyKeys()) {
            page.append("  (any other key is accepted)\n");
        }
        spec.freeForm().ifPresent(f -> page.append("\nFree form: '").append(name).append(": VALUE' sets ").append(f).append('\n'));
        spec.requiredOneOf().forEach(s -> page.append("At least one of: ").append(String.join(", ", new TreeSet<>(s))).append('\n'));
        spec.mutuallyExclusive().forEach(s -> page.append("At most one of: ").append(String.join(", ", new TreeSet<>(s))).append('\n'));
        return page.toString();
    }
}
