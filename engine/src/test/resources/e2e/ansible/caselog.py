# A stdout callback for the differential test: one JSON line per task result (task name, status,
# message), so that the test reads Ansible's verdict per case without parsing the human output.
from ansible.plugins.callback import CallbackBase
import json


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'stdout'
    CALLBACK_NAME = 'caselog'

    def _log(self, result, status):
        r = result._result
        msg = r.get('msg', '')
        if not isinstance(msg, str):
            msg = json.dumps(msg)
        self._display.display(json.dumps({'task': result._task.get_name(), 'status': status, 'msg': msg}))

    def v2_runner_on_ok(self, result):
        self._log(result, 'changed' if result._result.get('changed') else 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._log(result, 'failed')

    def v2_runner_on_skipped(self, result):
        pass

    def v2_runner_on_unreachable(self, result):
        self._log(result, 'unreachable')
