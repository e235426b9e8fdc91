package dev.provision.engine.e2e;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs the annotated test class against one {@link TestCluster} of its own: started (lock taken) before
 * its first test, stopped (lock released) after its last. The cluster reaches the class as a
 * {@code TestCluster} parameter of a test, lifecycle method or constructor, or in a field of that type
 * (a static one, or an instance one under {@code @TestInstance(PER_CLASS)}), set before any
 * {@code @BeforeAll} method runs. The class is skipped where the cluster cannot run.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(TestClusterExtension.class)
public @interface ClusterTest {
    /** How many nodes: node01 .. nodeNN. */
    int nodes();

    /** Whether the site services (NTP, storage, registry, apt repository on the bridge) start too. */
    boolean services() default false;

    /** Tools the class needs beyond the cluster's own (names on PATH or absolute paths); missing ones skip it. */
    String[] needs() default {};
}
