package dev.courier.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The queue package's classes depend on each other one way (beans on stores, stores on the database, nothing
 * back on a bean): a cycle between two of its classes fails this test. Nested classes count as their outer class.
 */
class QueueDependenciesTest {

    @Test
    void should_have_no_dependency_cycle_between_the_queue_classes() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.courier.queue");
        Map<String, Set<String>> edges = new HashMap<>();
        for (JavaClass type : classes) {
            String from = topLevel(type);
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass();
                if (target.getPackageName().equals("dev.courier.queue")) {
                    String to = topLevel(target);
                    if (!to.equals(from)) {
                        edges.computeIfAbsent(from, k -> new TreeSet<>()).add(to);
                    }
                }
            }
        }
        assertEquals(List.of(), cycles(edges), "classes of the queue package that depend on each other in a cycle");
    }

    private static String topLevel(JavaClass type) {
        JavaClass outer = type;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer.getSimpleName();
    }

    /** Strongly connected components of more than one class (Tarjan). */
    private static List<Set<String>> cycles(Map<String, Set<String>> edges) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> found = new ArrayList<>();
        for (String node : new TreeSet<>(edges.keySet())) {
            if (!index.containsKey(node)) {
                connect(node, edges, index, low, stack, onStack, found);
            }
        }
        return found;
    }

    private static void connect(
            String node,
            Map<String, Set<String>> edges,
            Map<String, Integer> index,
            Map<String, Integer> low,
            Deque<String> stack,
            Set<String> onStack,
            List<Set<String>> found) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (String next : edges.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                connect(next, edges, index, low, stack, onStack, found);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (onStack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            Set<String> component = new TreeSet<>();
            String member;
            do {
                member = stack.pop();
                onStack.remove(member);
                component.add(member);
            } while (!member.equals(node));
            if (component.size() > 1) {
                found.add(component);
            }
        }
    }
}
