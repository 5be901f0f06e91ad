"""The GPU's SM clock and power draw read through NVML (libnvidia-ml, which
the driver installs; no Python package needed), so that a benchmark can say
at what clock each contender ran: the H200 runs attention at its power cap,
its clock set by the work of the moment (bench/NOTES.md, sessions 21-22).
Power is NVML's instantaneous reading where the driver has one (field
NVML_FI_DEV_POWER_INSTANT), else nvmlDeviceGetPowerUsage's (an average over
the driver's window). Every reading is None when NVML cannot be opened."""
import ctypes

_NVML_CLOCK_SM = 1
_NVML_FI_DEV_POWER_INSTANT = 186


class _FieldValue(ctypes.Structure):
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint), ("timestamp", ctypes.c_longlong),
                ("latencyUsec", ctypes.c_longlong), ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ulonglong)]  # a union of 8 bytes; the power field is an unsigned int (mW)


class GpuClock:
    """NVML's handle of the CUDA device whose PCI bus id is given (e.g. torch's
    f"{p.pci_domain_id:08x}:{p.pci_bus_id:02x}:{p.pci_device_id:02x}.0"), or of NVML's device 0."""

    def __init__(self, pci_bus_id=None):
        self.error = None
        self._handle = ctypes.c_void_p()
        try:
            self._nvml = ctypes.CDLL("libnvidia-ml.so.1")
            self._ok(self._nvml.nvmlInit_v2(), "nvmlInit_v2")
            found = pci_bus_id is not None and \
                self._nvml.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(self._handle)) == 0
            if not found:
                self._ok(self._nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self._handle)), "handle of device 0")
        except (OSError, RuntimeError) as e:
            self.error = str(e)
            self._nvml = None
        self._instant = self._nvml is not None and self._instant_mw() is not None

    @staticmethod
    def _ok(status, what):
        if status != 0:
            raise RuntimeError(f"NVML {what}: status {status}")

    def _instant_mw(self):
        field = _FieldValue(fieldId=_NVML_FI_DEV_POWER_INSTANT)
        if self._nvml.nvmlDeviceGetFieldValues(self._handle, 1, ctypes.byref(field)) != 0 or field.nvmlReturn != 0:
            return None
        return field.value & 0xFFFFFFFF

    def sm_mhz(self):
        if self._nvml is None:
            return None
        mhz = ctypes.c_uint()
        return mhz.value if self._nvml.nvmlDeviceGetClockInfo(self._handle, _NVML_CLOCK_SM, ctypes.byref(mhz)) == 0 \
            else None

    def power_w(self):
        if self._nvml is None:
            return None
        if self._instant:
            mw = self._instant_mw()
            return None if mw is None else mw / 1000
        mw = ctypes.c_uint()
        return mw.value / 1000 if self._nvml.nvmlDeviceGetPowerUsage(self._handle, ctypes.byref(mw)) == 0 else None

    def power_kind(self):
        return "instant" if self._instant else "NVML average"
