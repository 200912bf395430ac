package dev.courier.platform;

import jakarta.annotation.PostConstruct;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Keeps Courier's data directory ({@code courier.data.dir}: the embedded database, the broker's journal, the
 * generated passwords) to the operating-system user that runs Courier. Liberty starts with {@code umask 027}, so the
 * embedded database it creates would be readable by the user's group, payloads and producers' signing secrets
 * included. Guarantee: once Courier has started, the data directory and every directory of the embedded database
 * are {@code rwx------} and the database's files {@code rw-------}, whoever launched the server; a file system
 * without POSIX permissions is left as it is (logged).
 */
@Singleton
@Startup
@DependsOn("SchemaMigration") // the embedded database exists once the schema is migrated
public class OwnerOnlyData {

    private static final Logger LOG = Logger.getLogger(OwnerOnlyData.class.getName());
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

    @Inject
    @ConfigProperty(name = "courier.data.dir")
    Optional<String> dataDir;

    @PostConstruct
    void restrict() {
        if (dataDir.isEmpty()
                || !FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
            LOG.info("the data directory's permissions are left as they are: no courier.data.dir, or no POSIX file"
                    + " permissions here");
            return;
        }
        Path data = Path.of(dataDir.get());
        try {
            if (Files.isDirectory(data)) {
                Files.setPosixFilePermissions(data, DIRECTORY);
            }
            Path derby = data.resolve("derby");
            if (Files.isDirectory(derby)) {
                try (Stream<Path> tree = Files.walk(derby)) {
                    for (Path path : (Iterable<Path>) tree::iterator) {
                        Files.setPosixFilePermissions(path, Files.isDirectory(path) ? DIRECTORY : FILE);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not fatal: a directory someone else owns (a shared mount) keeps its permissions, and Courier runs.
            LOG.log(Level.WARNING, "could not make the data directory " + data + " its owner's only: " + e);
        }
    }
}
