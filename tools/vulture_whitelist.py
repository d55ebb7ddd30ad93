"""Names the dead-code scan (vulture at 80% confidence, tests/test_dead_code.py) reports on kvec/ that are
used after all, each with the reason. vulture reads this file as code that uses them."""

# kvec.chinese.Jieba.cut and cut_for_search take jieba's parameters; paddle mode is not installed there
# either, so use_paddle changes nothing, as in jieba without paddle
use_paddle  # noqa: B018, F821

# kvec.cli.show_warning replaces warnings.showwarning and so takes its parameters
category  # noqa: B018, F821
lineno  # noqa: B018, F821

# kvec.decoders.stream.DecodeStream.__deepcopy__: the copy protocol passes the memo
memo  # noqa: B018, F821
