#!/usr/bin/env python3
"""Follows the tck README's 20-line recipe in a fresh Maven project against the EJML backend and runs the kit.

The recipe's pom fragment and test class are taken from tck/README.md as written; the only additions are what any
project has of its own: coordinates, Java 17 compilation, and the backend under test (here the EJML backend, where
a backend author has their own code, so the template's NaiveBackendProvider becomes EjmlBackendProvider).

Needs the attn4j artifacts in the local Maven repository first:
    mvn -B install -DskipTests -DskipReleaseArtifacts
Usage:
    python3 tck/src/recipe/verify_recipe.py [--offline] [--keep]
Exit status: Maven's.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def recipe_blocks(text):
    section = text.split("## Run the kit on your backend", 1)[1].split("\n## ", 1)[0]
    xml = re.search(r"```xml\n(.*?)```", section, re.S).group(1)
    java = re.search(r"```java\n(.*?)```", section, re.S).group(1)
    return xml, java


def main():
    xml, java = recipe_blocks(README.read_text(encoding="utf-8"))
    backend = ("  <dependency><groupId>org.attn4j</groupId><artifactId>attn4j-backend-cpu-ejml</artifactId>"
               "<scope>test</scope></dependency>\n")
    xml = xml.replace("</dependencies>\n<build>", backend + "</dependencies>\n<build>", 1)
    xml = xml.replace("<plugins>\n", "<plugins>\n  <plugin><artifactId>maven-compiler-plugin</artifactId>"
                      "<version>3.13.0</version></plugin>\n", 1)
    pom = ("<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n<modelVersion>4.0.0</modelVersion>\n"
           "<groupId>com.example</groupId><artifactId>recipe</artifactId><version>1.0</version>\n"
           "<properties><maven.compiler.release>17</maven.compiler.release>"
           "<project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>\n"
           + xml + "</project>\n")
    java = (java.replace("import org.attn4j.backend.template.NaiveBackendProvider;",
                         "import org.attn4j.backend.ejml.EjmlBackendProvider;")
            .replace("new NaiveBackendProvider()", "new EjmlBackendProvider()"))
    work = pathlib.Path(tempfile.mkdtemp(prefix="attn4j-recipe-"))
    (work / "pom.xml").write_text(pom, encoding="utf-8")
    test_dir = work / "src/test/java"
    test_dir.mkdir(parents=True)
    (test_dir / "MyBackendConformanceTest.java").write_text(java, encoding="utf-8")
    command = ["mvn", "-B"] + (["-o"] if "--offline" in sys.argv else []) + ["test"]
    print("fresh project:", work, "\nrunning:", " ".join(command), flush=True)
    status = subprocess.call(command, cwd=work)
    report = work / "target/attn4j-tck/ejml.json"
    written = report.exists()
    print("report:", report if written else "missing")
    if "--keep" not in sys.argv:
        shutil.rmtree(work)
    return status if written else max(status, 1)


if __name__ == "__main__":
    sys.exit(main())
