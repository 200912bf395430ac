package dev.courier.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The helpers trace when OpenTelemetry's API is there and work when it is not (an application without MicroProfile
 * Telemetry, or whose class loader does not show it): loaded by a class loader that hides {@code io.opentelemetry},
 * the consumer is built and the HTTP client makes its calls.
 */
class ClientWithoutTracingTest {

    @Test
    void should_load_and_call_without_opentelemetry() throws Exception {
        try (URLClassLoader loader = new WithoutOpenTelemetry()) {
            Class<?> api = loader.loadClass("dev.courier.client.CourierApi");
            Class<?> http = loader.loadClass("dev.courier.client.HttpCourierApi");
            Object client = http.getConstructor(URI.class, Duration.class, String.class, String.class)
                    .newInstance(URI.create("http://127.0.0.1:9/"), Duration.ofSeconds(2), "someone", "secret");
            InvocationTargetException call = assertThrows(
                    InvocationTargetException.class,
                    () -> api.getMethod("prepare", String.class, String.class, String.class, Map.class, Duration.class)
                            .invoke(client, "t", "p", "{}", Map.of(), null));
            assertEquals(
                    "dev.courier.client.CourierException",
                    call.getCause().getClass().getName(),
                    "no answer from port 9, and no NoClassDefFoundError: " + call.getCause());

            Class<?> consumer = loader.loadClass("dev.courier.client.ReliableConsumer");
            Object anything = Proxy.newProxyInstance(loader, new Class<?>[] {api}, (proxy, method, args) -> null);
            Object built = consumer.getConstructor(
                            api,
                            String.class,
                            javax.sql.DataSource.class,
                            jakarta.transaction.TransactionSynchronizationRegistry.class)
                    .newInstance(
                            anything,
                            "billing",
                            proxy(javax.sql.DataSource.class),
                            proxy(jakarta.transaction.TransactionSynchronizationRegistry.class));
            assertTrue(consumer.isInstance(built));
        }
    }

    private static <T> T proxy(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> null));
    }

    /** Loads the helpers from target/classes itself; refuses OpenTelemetry; everything else from the test's loader. */
    private static final class WithoutOpenTelemetry extends URLClassLoader {

        WithoutOpenTelemetry() throws java.net.MalformedURLException {
            super(
                    new URL[] {Path.of("target/classes").toUri().toURL()},
                    ClientWithoutTracingTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("io.opentelemetry.")) {
                throw new ClassNotFoundException(name + " (hidden by the test)");
            }
            if (name.startsWith("dev.courier.client.")) {
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    return loaded != null ? loaded : findClass(name);
                }
            }
            return super.loadClass(name, resolve);
        }
    }
}
