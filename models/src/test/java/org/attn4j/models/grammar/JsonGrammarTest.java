package org.attn4j.models.grammar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** JSON schemas compiled to grammars: what each keyword admits, what strict mode demands, what is refused by name. */
class JsonGrammarTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text.replace('\'', '"'));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    private static JsonGrammar schema(String text) {
        return JsonGrammar.fromSchema(json(text), false);
    }

    private static final String PERSON = "{'type': 'object', 'properties': {'name': {'type': 'string'},"
            + " 'age': {'type': 'integer'}, 'tags': {'type': 'array', 'items': {'enum': ['a', 'b']}}},"
            + " 'required': ['name', 'age', 'tags'], 'additionalProperties': false}";

    @Test
    void anObjectSchemaTakesItsPropertiesInTheirOrder() {
        JsonGrammar g = JsonGrammar.fromSchema(json(PERSON), true);
        assertTrue(g.accepts("{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"a\", \"b\", \"a\"]}"));
        assertTrue(g.accepts("{\"name\":\"\",\"age\":-7,\"tags\":[]}"));
        assertFalse(g.accepts("{\"age\": 36, \"name\": \"Ada\", \"tags\": []}"), "order");
        assertFalse(g.accepts("{\"name\": \"Ada\", \"age\": 36}"), "a required property left out");
        assertFalse(g.accepts("{\"name\": \"Ada\", \"age\": 36.5, \"tags\": []}"), "integer");
        assertFalse(g.accepts("{\"name\": \"Ada\", \"age\": 36, \"tags\": [\"c\"]}"), "enum");
        assertFalse(g.accepts("{\"name\": \"Ada\", \"age\": 36, \"tags\": [], \"x\": 1}"), "another key");
    }

    @Test
    void optionalPropertiesMayBeLeftOutInAnyCombination() {
        JsonGrammar g = schema("{'type': 'object', 'properties': {'a': {'type': 'number'}, 'b': {'type': 'boolean'},"
                + " 'c': {'type': 'null'}}, 'required': ['b']}");
        assertTrue(g.accepts("{\"b\": true}"));
        assertTrue(g.accepts("{\"a\": 1.5, \"b\": false}"));
        assertTrue(g.accepts("{\"b\": true, \"c\": null}"));
        assertTrue(g.accepts("{\"a\": 0, \"b\": true, \"c\": null}"));
        assertFalse(g.accepts("{}"));
        assertFalse(g.accepts("{\"a\": 1}"));
        assertFalse(g.accepts("{\"b\": true,}"));
    }

    @Test
    void typeListsAnyOfConstAndEnumOfEveryKind() {
        JsonGrammar g = schema("{'type': ['string', 'null']}");
        assertTrue(g.accepts("\"x\"") && g.accepts("null"));
        assertFalse(g.accepts("1"));
        JsonGrammar any = schema("{'anyOf': [{'type': 'integer'}, {'type': 'array', 'items': {'type': 'string'}}]}");
        assertTrue(any.accepts("12") && any.accepts("[\"a\"]"));
        assertFalse(any.accepts("[1]") || any.accepts("1.5"));
        JsonGrammar constant = schema("{'const': {'k': [1, 'two']}}");
        assertTrue(constant.accepts("{\"k\":[1,\"two\"]}"));
        assertFalse(constant.accepts("{\"k\": [1, \"two\"]}"), "const is written compact");
        JsonGrammar e = schema("{'enum': ['red', 'green', 3, null]}");
        assertTrue(e.accepts("\"red\"") && e.accepts("\"green\"") && e.accepts("3") && e.accepts("null"));
        assertFalse(e.accepts("\"gree\"") || e.accepts("33"));
    }

    @Test
    void objectsWithoutPropertiesFollowAdditionalProperties() {
        assertTrue(schema("{'type': 'object'}").accepts("{\"x\": [1, {}]}"));
        assertTrue(schema("{'type': 'object', 'additionalProperties': {'type': 'integer'}}")
                .accepts("{\"x\": 1, \"y\": 2}"));
        assertFalse(schema("{'type': 'object', 'additionalProperties': {'type': 'integer'}}")
                .accepts("{\"x\": \"1\"}"));
        assertTrue(schema("{'type': 'object', 'additionalProperties': false}").accepts("{}"));
        assertFalse(schema("{'type': 'object', 'additionalProperties': false}").accepts("{\"x\": 1}"));
    }

    @Test
    void localReferencesMayRecurse() {
        JsonGrammar tree = JsonGrammar.fromSchema(json("{'type': 'object', 'properties': {'value': {'type': 'integer'},"
                + " 'children': {'type': 'array', 'items': {'$ref': '#'}}}, 'required': ['value', 'children'],"
                + " 'additionalProperties': false}"), true);
        assertTrue(tree.accepts("{\"value\": 1, \"children\": [{\"value\": 2, \"children\": []}]}"));
        assertFalse(tree.accepts("{\"value\": 1, \"children\": [{\"value\": 2}]}"));
        JsonGrammar defs = schema("{'$defs': {'point': {'type': 'object', 'properties': {'x': {'type': 'number'}},"
                + " 'required': ['x'], 'additionalProperties': false}, 'points': {'type': 'array', 'items':"
                + " {'$ref': '#/$defs/point'}}}, '$ref': '#/$defs/points'}");
        assertTrue(defs.accepts("[{\"x\": 1}, {\"x\": 2e3}]"));
        assertFalse(defs.accepts("[{\"y\": 1}]"));
    }

    @Test
    void annotationsAreIgnored() {
        assertTrue(schema("{'type': 'string', 'title': 'T', 'description': 'D', 'default': 'x', 'examples': ['y'],"
                + " '$schema': 'https://json-schema.org/draft/2020-12/schema'}").accepts("\"z\""));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{'type': 'string', 'pattern': '^a$'}|pattern|$",
        "{'type': 'string', 'format': 'date'}|format|$",
        "{'type': 'string', 'minLength': 1}|minLength|$",
        "{'type': 'object', 'properties': {'n': {'type': 'number', 'minimum': 0}}}|minimum|$.properties.n",
        "{'type': 'array', 'items': {'type': 'string'}, 'maxItems': 3}|maxItems|$",
        "{'oneOf': [{'type': 'string'}]}|oneOf|$",
        "{'allOf': [{'type': 'string'}]}|allOf|$",
        "{'type': 'strin'}|type|$",
        "{'type': 7}|type|$",
        "{'type': 'object', 'required': ['a']}|required|$",
        "{'type': 'object', 'properties': []}|properties|$",
        "{'enum': []}|enum|$",
        "{'type': 'string', 'enum': ['a', 1]}|enum|$",
        "{'$ref': 'https://example.com/s.json'}|$ref|$",
        "{'$ref': '#/$defs/missing'}|$ref|$",
        "{'type': 'array', 'items': [{'type': 'string'}]}|items|$",
        "{'anyOf': [{'type': 'string'}], 'type': 'string'}|anyOf|$",
        "{'type': 'object', 'properties': {'a': {'$defs': {}}}}|$defs|$.properties.a",
    })
    void keywordsItCannotHoldToAreRefusedByName(String schema, String keyword, String path) {
        JsonSchemaException e = assertThrows(JsonSchemaException.class, () -> schema(schema));
        assertEquals(keyword, e.keyword(), e.getMessage());
        assertEquals(path, e.path(), e.getMessage());
        assertTrue(e.getMessage().contains(keyword), e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"\"string\"", "[]", "42", "null", "false"})
    void whatIsNotASchemaIsRefused(String text) {
        JsonSchemaException e = assertThrows(JsonSchemaException.class,
                () -> JsonGrammar.fromSchema(json(text), false));
        assertNull(e.keyword());
        assertEquals("$", e.path());
    }

    @Test
    void strictModeDemandsEveryPropertyRequiredAndNoOtherKeys() {
        String open = "{'type': 'object', 'properties': {'a': {'type': 'string'}}, 'required': ['a']}";
        assertEquals("additionalProperties", assertThrows(JsonSchemaException.class,
                () -> JsonGrammar.fromSchema(json(open), true)).keyword());
        String optional = "{'type': 'object', 'properties': {'a': {'type': 'string'}, 'b': {'type': 'string'}},"
                + " 'required': ['a'], 'additionalProperties': false}";
        JsonSchemaException e = assertThrows(JsonSchemaException.class,
                () -> JsonGrammar.fromSchema(json(optional), true));
        assertEquals("required", e.keyword());
        assertTrue(e.getMessage().contains("'b'"), e.getMessage());
        assertEquals("type", assertThrows(JsonSchemaException.class,
                () -> JsonGrammar.fromSchema(json("{'type': 'string'}"), true)).keyword());
        String nested = "{'type': 'object', 'properties': {'o': {'type': 'object', 'properties': {}}}, 'required':"
                + " ['o'], 'additionalProperties': false}";
        assertEquals("$.properties.o", assertThrows(JsonSchemaException.class,
                () -> JsonGrammar.fromSchema(json(nested), true)).path());
    }
}
