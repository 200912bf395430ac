package dev.courier.testing;

import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The archive every integration test deploys: the lab's WAR the build produced (the product's, exactly as shipped,
 * with the lab inside), plus the
 * test-side beans (armed faults, a settable clock, test control endpoints). Named {@code courier.war} so the application is
 * {@code courier} and server.xml's activation specs ({@code courier/<Bean>}) apply. The test applications' paths
 * ({@code /api/test/*}) need no credentials: they stand for other services, which Courier calls without any.
 */
public final class CourierDeployment {

    private CourierDeployment() {}

    public static WebArchive war() {
        // The lab's WAR (the product with the demo business and the benchmarks), deployed under the product's name.
        File built = new File(System.getProperty("it.war", "target/courier-lab.war"));
        WebArchive war = ShrinkWrap.create(WebArchive.class, "courier.war")
                .merge(ShrinkWrap.createFromZipFile(WebArchive.class, built))
                .addClasses(
                        ArmedFaults.class,
                        SettableClock.class,
                        ProbeDriver.class,
                        TestControlResource.class,
                        Apps.class,
                        LossyCourierApi.class,
                        Orders.class,
                        Orders.Hold.class,
                        Orders.Rows.class,
                        Downstream.class,
                        UpstreamResource.class,
                        InboxListeners.class,
                        LocalInboxListener.class,
                        XaInboxListener.class,
                        HelperBench.class)
                .addAsLibrary(ShrinkWrap.create(JavaArchive.class, "courier-test-apps.jar")
                        .addAsManifestResource("test-apps-web-fragment.xml", "web-fragment.xml"));
        // Benchmarks (mvn -Pbench) measure the server without the recorder: it writes a line per answer.
        return Boolean.parseBoolean(System.getenv("COURIER_BENCH_ENABLED"))
                ? war
                : war.addClasses(ResponseRecorder.class);
    }

    /**
     * The tests' archive as a file, for a test that runs its own server process (a crash test that needs the test
     * applications and armed faults): {@code target/courier-tests.war}.
     */
    public static java.nio.file.Path exported() {
        File file = new File("target/courier-tests.war");
        war().as(org.jboss.shrinkwrap.api.exporter.ZipExporter.class).exportTo(file, true);
        return file.toPath();
    }
}
