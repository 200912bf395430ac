package dev.courier.scenario;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Logger;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Starts message-driven beans whose activation specs have {@code autoStart="false"}, through Liberty's
 * {@code ServerEndpointControl} MBean: for a bean that may attach to its queue only once the queue exists (the
 * lab's rms listeners, the tests' inbox listeners).
 */
public final class ListenerEndpoints {

    private static final Logger LOG = Logger.getLogger(ListenerEndpoints.class.getName());

    private ListenerEndpoints() {}

    /** @return whether an endpoint of each bean was found and resumed (false: not installed yet, try again) */
    public static boolean resume(String... beans) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName control = new ObjectName("WebSphere:feature=kernel,name=ServerEndpointControl");
            List<String> found = new ArrayList<>();
            for (Object endpoint : endpoints(server.invoke(control, "listEndpoints", null, null))) {
                for (String bean : beans) {
                    if (String.valueOf(endpoint).contains(bean)) {
                        found.add(String.valueOf(endpoint));
                    }
                }
            }
            if (found.size() < beans.length) {
                return false;
            }
            server.invoke(
                    control, "resume", new Object[] {String.join(",", found)}, new String[] {String.class.getName()});
            return true;
        } catch (Exception e) {
            LOG.warning("resuming " + String.join(", ", beans) + " failed: " + e);
            return false;
        }
    }

    private static Object[] endpoints(Object listed) {
        if (listed instanceof Object[] array) {
            return array;
        }
        if (listed instanceof Collection<?> collection) {
            return collection.toArray();
        }
        return new Object[] {listed};
    }
}
