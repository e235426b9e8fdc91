package dev.provision.modules.control;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.ParamSpec;
import dev.provision.modules.spi.ParamSpec.Type;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.Plan;
import dev.provision.modules.spi.TaskContext;
import dev.provision.modules.spi.TaskModule;
import java.util.List;
import java.util.Map;

/**
 * {@code assert}: fails the task unless every expression holds, evaluated in order with the
 * host's variables ({@link dev.provision.modules.spi.Expressions#test}).
 *
 * <p>Parameters (Ansible's names):
 * <ul>
 *   <li>{@code that}, required: one expression or a list of them. A single string is one
 *       expression even when it holds commas.
 *   <li>{@code fail_msg} (alias {@code msg}): the failure message; default
 *       {@code Assertion failed: <the expression that failed>}.
 *   <li>{@code success_msg}: the reason shown when all hold; default {@code All assertions passed}.
 *   <li>{@code quiet} (default false): leave the message out of the result.
 * </ul>
 */
public final class AssertModule implements TaskModule {
    private static final ParamSpec SPEC = ParamSpec.builder()
            .required("that", Type.ANY) // not LIST: a LIST would split "x in ['a','b']" at its commas
            .optional("fail_msg", Type.STRING, "msg")
            .optional("success_msg", Type.STRING)
            .withDefault("quiet", Type.BOOL, false)
            .expressions("that")
            .build();

    public AssertModule() {
    }

    @Override
    public String name() {
        return "assert";
    }

    @Override
    public boolean isHostLocal() {
        return true;
    }

    @Override
    public ParamSpec params() {
        return SPEC;
    }

    @Override
    public Plan plan(Params params, TaskContext context) throws ModuleException {
        Object that = params.raw("that");
        List<String> expressions = that instanceof List<?> list
                ? list.stream().map(String::valueOf).toList()
                : List.of(String.valueOf(that));
        if (expressions.isEmpty()) {
            throw new ModuleException("that: needs at least one expression");
        }
        for (String expression : expressions) {
            if (!context.expressions().test(expression)) {
                throw new ModuleException(params.optString("fail_msg").orElse("Assertion failed: " + expression));
            }
        }
        String message = params.optString("success_msg").orElse("All assertions passed");
        Plan plan = Plan.converged(message);
        return params.bool("quiet") ? plan : plan.withResult(Map.of("msg", message));
    }
}
