// Launcher starts one OpenSearch node in this JVM with its plugins loaded
// from the classpath (no plugins/ directory, no distribution tarball). It is
// compiled and run by scripts/opensearch.sh; see docs/opensearch.md.
//
// Usage: java -cp JARS:CLASSES Launcher key=value...
//
// Every argument is a node setting (path.home, path.data, cluster.name,
// node.name, network.host, http.port, transport.port, discovery.*). The
// node runs until the process gets SIGTERM/SIGINT, when it closes cleanly.

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

public final class Launcher {
    /** The plugins loaded from the classpath, by class name. */
    static final String[] PLUGINS = {
        "org.opensearch.transport.Netty4Plugin",
        "org.opensearch.analysis.common.CommonAnalysisPlugin",
        "org.opensearch.painless.PainlessPlugin",
        "org.opensearch.knn.plugin.KNNPlugin",
    };

    /** ClasspathNode exposes Node's protected constructor that takes plugin classes. */
    static final class ClasspathNode extends Node {
        ClasspathNode(Environment env, List<Class<? extends Plugin>> plugins) {
            super(env, plugins, true);
        }
    }

    public static void main(String[] args) throws Exception {
        Settings.Builder builder = Settings.builder();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq <= 0) {
                System.err.println("Launcher: argument " + arg + " is not key=value");
                System.exit(2);
            }
            builder.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        Settings input = builder.build();
        if (input.get("path.home") == null || input.get("node.name") == null) {
            System.err.println("Launcher: path.home and node.name are required");
            System.exit(2);
        }
        String nodeName = input.get("node.name");

        LogConfigurator.registerErrorListener();
        Environment env = InternalSettingsPreparer.prepareEnvironment(
            input, Collections.emptyMap(), null, () -> nodeName);
        LogConfigurator.setNodeName(nodeName);
        LogConfigurator.configureWithoutConfig(env.settings());

        List<Class<? extends Plugin>> plugins = new ArrayList<>();
        for (String name : PLUGINS) {
            plugins.add(Class.forName(name).asSubclass(Plugin.class));
        }

        Node node = new ClasspathNode(env, plugins);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                node.close();
                if (!node.awaitClose(30, TimeUnit.SECONDS)) {
                    System.err.println("Launcher: node did not close within 30s");
                }
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "launcher-shutdown"));

        try {
            node.start();
        } catch (Throwable t) {
            t.printStackTrace();
            System.exit(1);
        }
        System.out.println("Launcher: node " + nodeName + " started");
        // Node threads may all be daemons: keep the JVM alive until shutdown.
        Thread keepAlive = new Thread(() -> {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "launcher-keepalive");
        keepAlive.setDaemon(false);
        keepAlive.start();
    }
}
