package dev.provision.engine.e2e;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The lifecycle behind {@link ClusterTest}: starts the class's {@link TestCluster} before all its tests,
 * hands it over (fields, parameters) and closes it after all of them, also when a test or a
 * {@code @BeforeAll} method failed. The one place a cluster test class starts and stops its cluster.
 */
public final class TestClusterExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestClusterExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        Class<?> testClass = context.getRequiredTestClass();
        ClusterTest spec = AnnotationSupport.findAnnotation(testClass, ClusterTest.class).orElseThrow(
                () -> new IllegalStateException(testClass.getName() + " extends with TestClusterExtension without @ClusterTest"));
        TestCluster cluster = TestCluster.start(spec.nodes(), spec.services(), List.of(spec.needs()));
        context.getStore(NAMESPACE).put(TestCluster.class, cluster);
        Optional<Object> instance = context.getTestInstance();
        for (Class<?> c = testClass; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field field : c.getDeclaredFields()) {
                boolean isStatic = Modifier.isStatic(field.getModifiers());
                if (field.getType() == TestCluster.class && (isStatic || instance.isPresent())) {
                    field.setAccessible(true);
                    field.set(isStatic ? null : instance.get(), cluster);
                }
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        TestCluster cluster = context.getStore(NAMESPACE).remove(TestCluster.class, TestCluster.class);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestCluster cluster = context.getStore(NAMESPACE).get(TestCluster.class, TestCluster.class);
        if (cluster == null) {
            throw new ParameterResolutionException("the test cluster is not started yet (constructor of a per-method test instance?)");
        }
        return cluster;
    }
}
