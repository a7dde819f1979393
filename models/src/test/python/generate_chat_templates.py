#!/usr/bin/python3
"""Render chat templates exactly as transformers' apply_chat_template does, for ChatTemplatesMatchTransformersTest.

Two sets of cases go to models/src/test/resources/org/attn4j/models/chat/expected.json:

  checkpoints  the chat_template of each checkpoint folder under chat/checkpoints/ (its tokenizer_config.json holds
               the template string and the special tokens as the checkpoint's own tokenizer_config.json has them),
               rendered for every conversation below: single user turn, system + alternating turns, no generation
               prompt, text with quotes, backslashes, Unicode and Jinja-like braces, tool schemas with tool calls
               and tool results, assistant reasoning_content beside tool calls, continue_final_message, a
               date_string variable;
  features     small templates, one Jinja behaviour each (white space control, trim_blocks and lstrip_blocks,
               loop variables and controls, namespaces, string methods, filters, tests, operators, tojson), rendered
               with the same Jinja2 set-up.

The set-up is transformers' (utils/chat_template_utils.py): ImmutableSandboxedEnvironment(trim_blocks=True,
lstrip_blocks=True, extensions=[loopcontrols and a {% generation %} block]), its tojson filter
(json.dumps(x, ensure_ascii=False, indent=indent, separators=separators, sort_keys=sort_keys)), raise_exception and
strftime_now as globals, and render(messages=..., tools=..., documents=..., add_generation_prompt=...,
**special_tokens_map, **kwargs) where special_tokens_map holds the roles that have a token. strftime_now reads a fixed
time, 2024-09-05 13:45 UTC, which the Java test gives its clock. A case whose rendering raises is stored with the
error message instead of the text.

Usage:
    /usr/bin/python3 models/src/test/python/generate_chat_templates.py          write expected.json
    /usr/bin/python3 models/src/test/python/generate_chat_templates.py --check  compare with the committed file
"""

import argparse
import copy
import datetime
import json
import os
import sys

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
CHAT = os.path.normpath(os.path.join(HERE, "..", "resources", "org", "attn4j", "models", "chat"))
NOW = datetime.datetime(2024, 9, 5, 13, 45, 0, tzinfo=datetime.timezone.utc)
ROLES = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]


class GenerationBlock(jinja2.ext.Extension):
    """{% generation %}...{% endgeneration %}, which transformers uses to mark assistant text: renders its body."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationBlock, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: NOW.strftime(fmt)
    return env


def render(env, template, messages, special_tokens, add_generation_prompt=False, tools=None, documents=None,
           continue_final_message=False, variables=None):
    """apply_chat_template's rendering (tokenize=False); returns {"text": ...} or {"error": ...}."""
    chat = copy.deepcopy(messages)
    tag = "CONTINUE_FINAL_MESSAGE_TAG "
    try:
        compiled = env.from_string(template)
        final_message = None
        if continue_final_message:
            if add_generation_prompt:
                raise ValueError("continue_final_message and add_generation_prompt are not compatible")
            final_message = chat[-1]["content"]
            chat[-1]["content"] = final_message + tag
        kwargs = dict(special_tokens)
        kwargs.update(variables or {})
        text = compiled.render(messages=chat, tools=tools, documents=documents,
                               add_generation_prompt=add_generation_prompt, **kwargs)
        if continue_final_message:
            if final_message.strip() not in text or tag.strip() not in text:
                raise ValueError("continue_final_message is set but the final message does not appear")
            at = text.rindex(tag.strip())
            text = text[:at] if text[at:at + len(tag)] == tag else text[:at].rstrip()
        return {"text": text}
    except Exception as e:  # the Java side checks that it fails too, and how for raise_exception
        return {"error": "%s: %s" % (type(e).__name__, e)}


TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather in a city, \"now\".",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city, e.g. Paris"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"]}}}]

CONVERSATIONS = [
    {"name": "single_user", "add_generation_prompt": True,
     "messages": [{"role": "user", "content": "Hello, how are you?"}]},
    {"name": "system_and_turns", "add_generation_prompt": True,
     "messages": [{"role": "system", "content": "You are a pirate."},
                  {"role": "user", "content": "  Hi there!  "},
                  {"role": "assistant", "content": "Arr, matey."},
                  {"role": "user", "content": "Tell me more\n"}]},
    {"name": "turns_without_prompt", "add_generation_prompt": False,
     "messages": [{"role": "user", "content": "What is 2 + 2?"},
                  {"role": "assistant", "content": "4"},
                  {"role": "user", "content": "And 3 + 3?"},
                  {"role": "assistant", "content": "6"}]},
    {"name": "awkward_text", "add_generation_prompt": True,
     "messages": [{"role": "user", "content": "Caf\u00e9 \u2615 \u4e2d\u6587 \U0001F600 \"quotes\" 'single' "
                                              "\\backslash\\ {{ 7 * 7 }} {% if true %}tag{% endif %} {# c #}\n\n"
                                              "\ttab <|eot_id|> </s>"}]},
    {"name": "tool_calls", "add_generation_prompt": True, "tools": TOOLS,
     "messages": [{"role": "user", "content": "What's the weather in Paris?"},
                  {"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function", "function": {
                      "name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}]},
                  {"role": "tool", "tool_call_id": "call_1", "name": "get_weather", "content": "22.0"}]},
    {"name": "tools_first_turn", "add_generation_prompt": True, "tools": TOOLS,
     "messages": [{"role": "system", "content": "Be brief."},
                  {"role": "user", "content": "Weather in Oslo, please."}]},
    {"name": "continue_final_message", "add_generation_prompt": False, "continue_final_message": True,
     "messages": [{"role": "user", "content": "Name a colour."},
                  {"role": "assistant", "content": "The colour is"}]},
    {"name": "date_string", "add_generation_prompt": True, "variables": {"date_string": "01 Jan 2025"},
     "messages": [{"role": "user", "content": "What day is it?"}]},
    {"name": "reasoning_and_tool_results", "add_generation_prompt": True, "tools": TOOLS,
     "variables": {"enable_thinking": True},
     "messages": [{"role": "user", "content": "Weather in Paris?"},
                  {"role": "assistant", "content": "", "reasoning_content": "\nThe tool knows.\n",
                   "tool_calls": [{"id": "abc123XYZ", "type": "function", "function": {
                       "name": "get_weather", "arguments": {"city": "Paris"}}}]},
                  {"role": "tool", "tool_call_id": "abc123XYZ", "content": "22.0"},
                  {"role": "assistant", "content": "It is 22 degrees.", "reasoning_content": "Read it out."},
                  {"role": "user", "content": "Thanks!"}]},
    {"name": "thinking", "add_generation_prompt": True, "variables": {"enable_thinking": False},
     "messages": [{"role": "user", "content": "Hi"},
                  {"role": "assistant", "content": "<think>\nhmm\n</think>\n\nHello!"},
                  {"role": "user", "content": "Again?"}]},
]

MESSAGES = [{"role": "system", "content": "  Be kind.  "}, {"role": "user", "content": "Hello World"},
            {"role": "assistant", "content": "Hi! <think>plan</think>Done."}, {"role": "user", "content": "Bye"}]

FEATURES = {
    "trim_blocks": "{% if true %}\n  yes\n{% endif %}\nafter\n",
    "lstrip_blocks": "  {% for m in messages %}\n    [{{ m.role }}]\n  {% endfor %}\nend",
    "whitespace_control": "a  {%- if true -%}  b  {%- endif -%}  c {{- ' d ' -}} e",
    "comments": "a\n{# a comment #}\nb {#- trimmed -#} c",
    "trailing_newline_dropped": "x\n",
    "crlf_normalized": "one\r\ntwo\rthree\n",
    "expression_newline_kept": "{{ 'a' }}\n{{ 'b' }}\n\n",
    "loop_variables": "{% for m in messages %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}"
                      "{{ loop.revindex0 }}{{ loop.length }}{% if loop.first %}F{% endif %}"
                      "{% if loop.last %}L{% endif %};{% endfor %}",
    "loop_previtem": "{% for m in messages %}{% if not loop.first %}{{ loop.previtem.role }}>{% endif %}"
                     "{{ m.role }} {% endfor %}",
    "slice_with_step": "{{ messages[::2] | length }}",
    "loop_break_continue": "{% for i in range(6) %}{% if i == 1 %}{% continue %}{% endif %}"
                           "{% if i == 4 %}{% break %}{% endif %}{{ i }}{% endfor %}",
    "loop_over_dict_items": "{% for k, v in {'a': 1, 'b': 'x'}.items() %}{{ k }}={{ v }};{% endfor %}",
    "loop_items_filter": "{% for k, v in messages[0] | items %}{{ k }}:{{ v }}|{% endfor %}",
    "loop_else": "{% for m in [] %}{{ m }}{% else %}empty{% endfor %}",
    "loop_filter_condition": "{% for m in messages if m.role != 'system' %}{{ m.role }},{% endfor %}",
    "loop_filter_unpacking": "{% for k, v in {'a': 1, 'return': 2, 'b': 3} | items if k != 'return' %}{{ k }}={{ v }}"
                             "{% if not loop.last %}, {% endif %}{% endfor %}",
    "reversed_slice": "{% for m in messages[::-1] %}{{ m.role }} {{ loop.index0 }};{% endfor %}{{ 'abc'[::-1] }}",
    "text_before_block_on_one_line": "{% for m in messages %}{{ m.role }} {% endfor %}|  {% if true %}x{% endif %}",
    "plus_markers": "  {%+ if true %}x{% endif +%}\nafter",
    "braces_in_strings": "{{ '}}' }}{% set s = '%}' %}{{ s }}{{ {'a': {'b': 1}}['a']['b'] }}",
    "raw_block": "{% raw %}{{ not rendered }} {% if %}{% endraw %}",
    "namespace": "{% set ns = namespace(found=false, n=0) %}{% for m in messages %}{% if m.role == 'user' %}"
                 "{% set ns.found = true %}{% set ns.n = ns.n + 1 %}{% endif %}{% endfor %}"
                 "{% if ns.found %}users={{ ns.n }}{% endif %}",
    "set_scoping": "{% set x = 1 %}{% for m in messages %}{% set x = 2 %}{% endfor %}{{ x }}",
    "strip_methods": "[{{ messages[0].content.strip() }}][{{ messages[0].content.lstrip() }}]"
                     "[{{ messages[0].content.rstrip() }}][{{ 'xxhixx'.strip('x') }}][{{ '\\n\\nhi'.lstrip('\\n') }}]",
    "startswith_endswith": "{{ 'yes' if messages[1].content.startswith('Hello') else 'no' }}"
                           "{{ 'yes' if messages[1].content.endswith(('x', 'World')) else 'no' }}"
                           "{{ 'yes' if messages[3].content.startswith('bye') else 'no' }}",
    "split_methods": "{{ messages[2].content.split('</think>')[-1] }}|{{ messages[2].content.split('</think>')[0]"
                     ".split('<think>')[-1] }}|{{ '  a b  c '.split() | length }}|{{ 'a,b,,c'.split(',') | length }}",
    "case_methods": "{{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }} {{ 'MiXeD'.upper() }} "
                    "{{ 'MiXeD'.lower() }} {{ 'a-b'.replace('-', '+') }}",
    "string_join_method": "{{ ', '.join(['a', 'b', 'c']) }}",
    "dict_get_keys": "{{ messages[0].get('content') | trim }}|{{ messages[0].get('missing', 'none here') }}|"
                     "{{ messages[0].keys() | list | join(',') }}",
    "slicing": "{{ messages[1:] | length }} {{ messages[:-1] | length }} {{ messages[-1].content }} "
               "{{ 'abcdef'[1:3] }} {{ 'abcdef'[-2:] }}",
    "filters_text": "{{ '  padded  ' | trim }}|{{ 'abc' | length }}|{{ 'abc' | upper }}|{{ 'Abc' | lower }}|"
                    "{{ 'a b' | replace(' ', '_') }}|{{ 'x' | default('d') }}|{{ missing | default('d') }}",
    "filters_lists": "{{ messages | selectattr('role', 'equalto', 'user') | list | length }}|"
                     "{{ messages | rejectattr('role', 'equalto', 'user') | map(attribute='role') | join(',') }}|"
                     "{{ (messages | first).role }}|{{ (messages | last).role }}|"
                     "{{ messages | map(attribute='role') | unique | list | join(',') }}",
    "length_of_unicode": "{{ 'caf\u00e9 \U0001F600' | length }}",
    "tojson_default": "{{ {'a': 1, 'b': [true, none, 'x\"y'], 'c': {'d': 2.5}} | tojson }}",
    "tojson_indent": "{{ {'a': 1, 'b': [1, 2], 'c': {}} | tojson(indent=4) }}",
    "tojson_options": "{{ {'b': 1, 'a': 'caf\u00e9'} | tojson(sort_keys=true) }}|"
                      "{{ {'b': 1, 'a': 'caf\u00e9'} | tojson(ensure_ascii=true) }}|"
                      "{{ [1, 2] | tojson(separators=(',', ':')) }}",
    "tojson_string_and_number": "{{ 'text' | tojson }} {{ 3 | tojson }} {{ 0.1 | tojson }} {{ messages | length | tojson }}",
    "tests": "{{ 'a' is string }}{{ 1 is string }}{{ messages[0] is mapping }}{{ 'a' is iterable }}"
             "{{ messages is iterable }}{{ 1 is iterable }}{{ 1 is number }}{{ 'a' is number }}{{ none is none }}"
             "{{ missing is defined }}{{ messages is defined }}{{ missing is undefined }}",
    "iterable_undefined": "{{ missing is iterable }}{{ messages[0]['tool_calls'] is iterable }}"
                          "{% for x in messages[0]['tool_calls'] %}never{% endfor %}",
    "tests_in_if": "{% if messages[0].content is string %}s{% endif %}{% if messages is not string %}n{% endif %}"
                   "{% if messages[0] is mapping and messages is iterable %}m{% endif %}",
    "not_is_defined": "{% if not tools_x is defined %}undefined{% endif %}{% if not messages is defined %}bad{% endif %}",
    "membership": "{{ 'content' in messages[0] }}{{ 'tool_calls' in messages[0] }}{{ 'think' in messages[2].content }}"
                  "{{ 'user' in ['user', 'system'] }}{{ 'x' not in 'abc' }}",
    "operators": "{{ 1 + 2 }} {{ 7 // 2 }} {{ 7 % 3 }} {{ 2 ** 3 }} {{ 'a' ~ 1 }} {{ 'ab' + 'cd' }} {{ [1] + [2] }}"
                 " {{ 3 > 2 and not 1 > 2 }} {{ 'y' if 1 else 'n' }} {{ (1 + 2) * 3 }}",
    "booleans_print": "{{ true }} {{ false }} {{ 1 == 1 }}",
    "lists_print": "{{ [1, 'a', true] }} {{ {'k': 'v'} }}",
    "modulo_alternation": "{% for m in messages %}{% if (m.role == 'user') != (loop.index0 % 2 == 1) %}!"
                          "{% endif %}{% endfor %}ok",
    "macro": "{% macro turn(m) %}<{{ m.role }}:{{ m.content | trim }}>{% endmacro %}"
             "{% for m in messages %}{{ turn(m) }}{% endfor %}",
    "set_block": "{% set header %}[{{ messages | length }} messages]{% endset %}{{ header }}",
    "generation_block": "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}{{ m.content }}"
                        "{% endgeneration %}{% else %}{{ m.content | trim }}{% endif %}|{% endfor %}",
    "raise_exception": "{% if messages | length > 2 %}{{ raise_exception('Too many messages: ' ~ messages | length) }}"
                       "{% endif %}",
    "strftime_now": "{{ strftime_now('%Y-%m-%d %H:%M:%S %a %A %b %B %d %I %p %j %y %%') }}",
    "concatenating_none_fails": "{{ 'x' + none }}",
    "bos_and_specials": "{{ bos_token }}|{{ eos_token }}|{{ add_generation_prompt }}",
    "dict_literal_and_iteration_order": "{% for k in {'z': 1, 'a': 2, 'm': 3} %}{{ k }}{% endfor %}",
    "range_and_length": "{% for i in range(messages | length) %}{{ i }}{% endfor %}",
    "int_and_string_filters": "{{ '42' | int + 1 }} {{ 42 | string + '!' }} {{ 3.0 | int }}",
    "nested_quotes_escapes": "{{ 'it\\'s' }} {{ \"say \\\"hi\\\"\" }} {{ 'a\\tb' }} {{ 'line\\nbreak' }}",
}


def generate():
    env = environment()
    checkpoints = []
    root = os.path.join(CHAT, "checkpoints")
    for name in sorted(os.listdir(root)):
        with open(os.path.join(root, name, "tokenizer_config.json"), encoding="utf-8") as f:
            config = json.load(f)
        specials = {role: config[role] for role in ROLES if config.get(role) is not None}
        if config.get("additional_special_tokens"):
            specials["additional_special_tokens"] = config["additional_special_tokens"]
        for conversation in CONVERSATIONS:
            result = render(env, config["chat_template"], conversation["messages"], specials,
                            add_generation_prompt=conversation["add_generation_prompt"],
                            tools=conversation.get("tools"),
                            continue_final_message=conversation.get("continue_final_message", False),
                            variables=conversation.get("variables"))
            checkpoints.append(dict(checkpoint=name, conversation=conversation["name"], **result))
    features = []
    specials = {"bos_token": "<s>", "eos_token": "</s>"}
    for name, template in FEATURES.items():
        result = render(env, template, MESSAGES, specials, add_generation_prompt=True)
        features.append(dict(name=name, template=template, **result))
    return {"now": NOW.isoformat(), "messages": MESSAGES, "special_tokens": specials,
            "conversations": CONVERSATIONS, "checkpoints": checkpoints, "features": features}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare with the committed expected.json")
    args = ap.parse_args()
    text = json.dumps(generate(), ensure_ascii=False, indent=1) + "\n"
    path = os.path.join(CHAT, "expected.json")
    if args.check:
        with open(path, encoding="utf-8") as f:
            if f.read() != text:
                sys.exit(path + " differs from a fresh rendering")
        print("expected.json reproduced (jinja2 %s)" % jinja2.__version__)
        return
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    errors = sum(1 for c in generate()["checkpoints"] if "error" in c)
    print("wrote %s: jinja2 %s, %d checkpoint renderings (%d raise), %d features"
          % (path, jinja2.__version__, len(generate()["checkpoints"]), errors, len(FEATURES)))


if __name__ == "__main__":
    main()
