package dev.courier.platform;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.courier.testing.CourierDeployment;
import dev.courier.testing.DatabaseIndependent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test server is started by Liberty's own script (umask 027), as an operator's would be: the embedded database
 * it created is still its owner's only.
 */
@DatabaseIndependent
@ExtendWith(ArquillianExtension.class)
class OwnerOnlyDataIT {

    @Deployment(testable = false)
    static WebArchive deployment() {
        return CourierDeployment.war();
    }

    @Test
    void the_data_directory_and_the_embedded_database_are_the_owners_only() throws Exception {
        Path data = Path.of(System.getProperty("it.data.dir"));
        for (Path directory : new Path[] {data, data.resolve("derby"), data.resolve("derby/courier")}) {
            assertEquals(
                    "rwx------",
                    PosixFilePermissions.toString(Files.getPosixFilePermissions(directory)),
                    directory.toString());
        }
        assertEquals(
                "rw-------",
                PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(data.resolve("derby/courier/service.properties"))));
    }
}
