/*
 * Hashes passwords as Liberty's securityUtility does ({hash}: salted PBKDF2), reading them one a line from standard
 * input and printing one hash a line: bin/credentials runs it (java -cp "<wlp>/lib/*" bin/PasswordHash.java), so
 * that no password is ever an argument of a process, where /proc/<pid>/cmdline shows it to every user of the host.
 */
public class PasswordHash {
    public static void main(String[] args) throws Exception {
        java.io.BufferedReader in = new java.io.BufferedReader(
                new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            System.out.println(com.ibm.websphere.crypto.PasswordUtil.encode(line, "hash"));
        }
    }
}
