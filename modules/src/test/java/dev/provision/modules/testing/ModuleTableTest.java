package dev.provision.modules.testing;

import static java.util.Objects.requireNonNull;

import dev.provision.modules.spi.TaskModule;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table test of one module whose rows are (name, {@link FakeHost}, raw arguments, {@link Expect}):
 * every row plans as it expects ({@link Expect#check}), and every row that plans something plans
 * nothing once its plan is applied ({@link Expect#checkIdempotent}). A subclass passes its module to
 * the constructor and provides the static row sources {@code cases()} (written with {@link Table#row})
 * and {@code plannedCases()} (usually {@code Table.planned(cases())}), which JUnit finds by name; it
 * adds the module's own tests beside them.
 *
 * @param <M> the module's type, so that the subclass's own tests reach what it has beyond {@link TaskModule}
 */
public abstract class ModuleTableTest<M extends TaskModule> {
    protected final M module;
    /** An empty controller directory of this test's own: where the playbook's files would be. */
    @TempDir
    protected Path controller;

    protected ModuleTableTest(M module) {
        this.module = requireNonNull(module, "module cannot be null");
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("cases")
    void plans(String name, FakeHost host, Map<String, Object> args, Expect expect) {
        Expect.check(module, new FakeContext(host, controller), args, expect);
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("plannedCases")
    void plansNothingOnceThePlanIsApplied(String name, FakeHost host, Map<String, Object> args, Expect expect) throws Exception {
        Expect.checkIdempotent(module, new FakeContext(host, controller), args, host);
    }
}
